//! A [`Plan`] as its executor runs it: runs of rows sharing an accumulator, the program
//! steps those runs can do, the accumulators still used, and the first write of each.

use super::{NONE, Other, Plan, Run, Xor};

impl Plan {
    /// The plan as the executor runs it ([`Plan::parity_body`]):
    ///
    /// 1. consecutive rows that add to one accumulator form a run, whose strip of that
    ///    accumulator stays in registers while its rows are read;
    /// 2. a program step that adds such an accumulator to another, once its run is over, is
    ///    done by the run (the other is one of its `sinks`), and an accumulator that nothing
    ///    reads any more is not stored at all (a Hamming grid row goes straight into its
    ///    checks);
    /// 3. the accumulators still used are numbered anew, so that strips are as wide as they
    ///    can be;
    /// 4. the first write of every accumulator, in the order they run, stores rather than
    ///    adds: the accumulators are never cleared. Steps that read an accumulator nothing
    ///    wrote add zero and are dropped; a parity row nothing wrote is zeros, written by a
    ///    run without rows.
    pub(super) fn compile(&mut self) {
        let feeds = &self.feeds;
        let shares = |p: usize, a: u16| a != NONE && feeds.get(p).is_some_and(|f| f.contains(&a));
        // 1. Runs: (shared, rows), and each row's other accumulator.
        let mut runs: Vec<(u16, std::ops::Range<usize>)> = Vec::new();
        let mut others = vec![NONE; feeds.len()];
        let mut p = 0;
        while p < feeds.len() {
            let [a, b] = feeds[p];
            if a == NONE && b == NONE {
                p += 1;
                continue;
            }
            let shared = match (shares(p + 1, a), shares(p + 1, b)) {
                (true, _) => a,
                (_, true) => b,
                _ if a != NONE => a,
                _ => b,
            };
            let first = p;
            while shares(p, shared) {
                let [a, b] = feeds[p];
                others[p] = if a == shared { b } else { a };
                p += 1;
            }
            runs.push((shared, first..p));
        }
        // 2. Steps done by the run of their source: one that is the shared accumulator of
        // exactly one run and no row's other, not written by a step before, and a
        // destination that no step before reads and that the run does not write otherwise.
        // (Runs go before every step, so a step moved into one must not be reordered
        // against a step that writes its source or reads its destination.)
        let n = self.accs;
        let mut run_of: Vec<Option<usize>> = vec![None; n];
        let mut runs_of = vec![0usize; n];
        for (r, (shared, _)) in runs.iter().enumerate() {
            run_of[*shared as usize] = Some(r);
            runs_of[*shared as usize] += 1;
        }
        for &o in others.iter().filter(|&&o| o != NONE) {
            runs_of[o as usize] += 2;
        }
        let mut sinks: Vec<Vec<u16>> = vec![Vec::new(); runs.len()];
        let (mut kept, mut read, mut stepped) = (Vec::new(), vec![false; n], vec![false; n]);
        let mut kept_reads = vec![false; n];
        for x in std::mem::take(&mut self.program) {
            let (src, dst) = (x.src as usize, x.dst as usize);
            let by_run = run_of[src].filter(|&r| {
                let (shared, rows) = &runs[r];
                runs_of[src] == 1
                    && !stepped[src]
                    && !read[dst]
                    && x.dst != *shared
                    && !others[rows.clone()].contains(&x.dst)
            });
            read[src] = true;
            stepped[dst] = true;
            match by_run {
                Some(r) => sinks[r].push(x.dst),
                None => {
                    kept_reads[src] = true;
                    kept.push(x);
                }
            }
        }
        // 3. The accumulators still used, numbered in the order they are first used.
        let stored = |shared: u16| kept_reads[shared as usize] || self.outs.contains(&shared);
        let mut index = vec![NONE; n];
        let mut count = 0u16;
        let mut id = |a: u16| {
            if a == NONE {
                return NONE;
            }
            if index[a as usize] == NONE {
                index[a as usize] = count;
                count += 1;
            }
            index[a as usize]
        };
        // 4. In the order they run: each run's rows' others, its shared accumulator, its
        // sinks; then the steps; then the parity rows.
        let mut written = vec![false; n];
        let write = |written: &mut [bool], a: u16| {
            let fresh = !written[a as usize];
            written[a as usize] = true;
            fresh
        };
        self.others = vec![
            Other {
                acc: NONE,
                fresh: false
            };
            feeds.len()
        ];
        self.runs.clear();
        self.sinks.clear();
        for ((shared, rows), sinks) in runs.iter().zip(&sinks) {
            for p in rows.clone() {
                let o = others[p];
                self.others[p] = Other {
                    acc: id(o),
                    fresh: o != NONE && write(&mut written, o),
                };
            }
            let store = stored(*shared);
            let first = self.sinks.len();
            for &t in sinks {
                let fresh = write(&mut written, t);
                self.sinks.push(Other { acc: id(t), fresh });
            }
            self.runs.push(Run {
                shared: if store { id(*shared) } else { NONE },
                fresh: !store || write(&mut written, *shared),
                first: rows.start,
                len: rows.len(),
                sinks: first..self.sinks.len(),
                consecutive: consecutive(&self.others[rows.clone()]),
            });
        }
        self.program.clear();
        for x in kept {
            if written[x.src as usize] {
                let copy = write(&mut written, x.dst);
                self.program.push(Xor {
                    dst: id(x.dst),
                    src: id(x.src),
                    copy,
                });
            }
        }
        for o in &mut self.outs {
            if write(&mut written, *o) {
                self.runs.push(Run {
                    shared: id(*o),
                    fresh: true,
                    first: 0,
                    len: 0,
                    sinks: 0..0,
                    consecutive: None,
                });
            }
            *o = id(*o);
        }
        self.accs = count as usize;
    }
}

/// `Some((base, fresh))` when the others of a run's rows are the accumulators `base, base + 1,
/// ...` in order and all `fresh` or none ([`Run::consecutive`](super::Run)).
fn consecutive(others: &[Other]) -> Option<(u16, bool)> {
    let first = others.first().filter(|o| o.acc != NONE)?;
    let in_order = others
        .iter()
        .enumerate()
        .all(|(i, o)| usize::from(o.acc) == usize::from(first.acc) + i && o.fresh == first.fresh);
    in_order.then_some((first.acc, first.fresh))
}
