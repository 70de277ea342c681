//! The processes one simulation runs on: this one alone, or with the cargo feature `mpi` the
//! ranks of `mpirun -np N tilecode simulate ...`, which share every round's batches and sum
//! their counts (see `tilecode::sim::team`). Only rank 0 writes output, plots and checkpoints.

use tilecode::sim::{Solo, Team};

/// The team of this run, kept alive (MPI is finalised when it is dropped).
pub struct Processes {
    #[cfg(feature = "mpi")]
    _universe: Option<mpi::environment::Universe>,
    team: Box<dyn Team>,
}

impl Processes {
    /// Joins the MPI job when built with `mpi` and started by `mpirun`; otherwise a team of one.
    pub fn start() -> Self {
        #[cfg(feature = "mpi")]
        {
            if let Some(universe) = mpi::initialize() {
                let world = universe.world();
                let team: Box<dyn Team> = if mpi::traits::Communicator::size(&world) > 1 {
                    Box::new(mpi_team::Ranks { world })
                } else {
                    Box::new(Solo)
                };
                return Processes {
                    _universe: Some(universe),
                    team,
                };
            }
            Processes {
                _universe: None,
                team: Box::new(Solo),
            }
        }
        #[cfg(not(feature = "mpi"))]
        Processes {
            team: Box::new(Solo),
        }
    }

    /// The team.
    pub fn team(&self) -> &dyn Team {
        self.team.as_ref()
    }

    /// True on the process that writes (rank 0).
    pub fn is_root(&self) -> bool {
        self.team.rank() == 0
    }
}

#[cfg(feature = "mpi")]
mod mpi_team {
    use mpi::collective::SystemOperation;
    use mpi::topology::SimpleCommunicator;
    use mpi::traits::*;
    use tilecode::sim::{Counts, Team};

    /// The ranks of `MPI_COMM_WORLD`.
    pub struct Ranks {
        pub world: SimpleCommunicator,
    }

    impl Team for Ranks {
        fn rank(&self) -> usize {
            self.world.rank() as usize
        }

        fn size(&self) -> usize {
            self.world.size() as usize
        }

        fn sum(&self, counts: Counts) -> Counts {
            // Every rank's eight words to every rank, added up here: the u128 sum of squares
            // does not fit one MPI reduction.
            let mine = counts.to_words();
            let mut all = vec![0u64; 8 * self.size()];
            self.world.all_gather_into(&mine[..], &mut all[..]);
            all.chunks_exact(8).fold(Counts::default(), |acc, w| {
                acc + Counts::from_words(w.try_into().expect("eight words"))
            })
        }

        fn max(&self, x: f64) -> f64 {
            let mut out = 0f64;
            self.world
                .all_reduce_into(&x, &mut out, SystemOperation::max());
            out
        }
    }
}
