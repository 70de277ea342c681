//! The exact branch and bound over the kernel coordinates, with a lower bound that tightens as
//! coordinates are fixed (`docs/theory.md`).

use super::{Groups, Progress};

/// Limits of one branch-and-bound run: nodes, and class updates.
#[derive(Clone, Copy)]
pub(super) struct Budget {
    pub(super) nodes: u64,
    pub(super) work: u64,
}

/// Outcome of [`branch_and_bound`].
pub(super) struct BnbOutcome {
    pub(super) best: u64,
    pub(super) best_u: u64,
    pub(super) complete: bool,
    pub(super) lower_bound: u64,
}

/// One level of the search: the classes of groups that agree on the coordinates not yet fixed.
/// `keys` are the group keys shifted right by the depth; `a`/`b` the class's weight when its
/// common free bit is 0/1, given the coordinates already fixed.
#[derive(Default, Clone)]
struct Level {
    keys: Vec<u64>,
    a: Vec<u64>,
    b: Vec<u64>,
}

impl Level {
    /// Lower bounds of the two children (fixing the next coordinate to 0 and to 1).
    fn child_bounds(&self) -> [u64; 2] {
        let mut lb = [0u64; 2];
        let n = self.keys.len();
        let mut i = 0;
        while i < n {
            let nk = self.keys[i] >> 1;
            let (mut a0, mut b0, mut a1, mut b1) = (0, 0, 0, 0);
            while i < n && self.keys[i] >> 1 == nk {
                let (a, b) = (self.a[i], self.b[i]);
                a0 += a;
                b0 += b;
                if self.keys[i] & 1 == 1 {
                    a1 += b;
                    b1 += a;
                } else {
                    a1 += a;
                    b1 += b;
                }
                i += 1;
            }
            if nk == 0 {
                lb[0] += a0;
                lb[1] += a1;
            } else {
                lb[0] += a0.min(b0);
                lb[1] += a1.min(b1);
            }
        }
        lb
    }

    /// The level below, with the next coordinate fixed to `v`.
    fn descend(&self, v: bool, out: &mut Level) {
        out.keys.clear();
        out.a.clear();
        out.b.clear();
        for i in 0..self.keys.len() {
            let k = self.keys[i];
            let (a, b) = if v && k & 1 == 1 {
                (self.b[i], self.a[i])
            } else {
                (self.a[i], self.b[i])
            };
            let nk = k >> 1;
            if out.keys.last() == Some(&nk) {
                *out.a.last_mut().expect("nonempty") += a;
                *out.b.last_mut().expect("nonempty") += b;
            } else {
                out.keys.push(nk);
                out.a.push(a);
                out.b.push(b);
            }
        }
    }
}

struct Bnb<'a> {
    d: usize,
    levels: Vec<Level>,
    best: u64,
    best_u: u64,
    u: u64,
    nodes: u64,
    /// Class updates so far (the search's unit of work).
    work: u64,
    budget: Budget,
    aborted: bool,
    /// Least lower bound among subtrees left unexplored when the budget ran out.
    frontier: u64,
    covered: u128,
    progress: Progress<'a>,
}

impl Bnb<'_> {
    fn report(&self) {
        if let Some(p) = self.progress {
            let shift = self.d.saturating_sub(62) as u32;
            p(
                (self.covered >> shift) as u64,
                ((1u128 << self.d) >> shift) as u64,
            );
        }
    }

    /// True when the work budget is spent, or an eighth of it is and the search, extrapolated
    /// from the share of the coordinate space it has covered, would overrun it.
    fn out_of_work(&self) -> bool {
        if self.budget.work == u64::MAX {
            return false;
        }
        if self.work >= self.budget.work {
            return true;
        }
        if self.work < self.budget.work / 8 {
            return false;
        }
        let share = self.covered as f64 / (1u128 << self.d) as f64;
        self.work as f64 > share * self.budget.work as f64
    }

    /// Searches below depth `t` (coordinates `0..t` fixed in `self.u`), whose bound is `lb`.
    fn dfs(&mut self, t: usize, lb: u64) {
        if self.aborted {
            self.frontier = self.frontier.min(lb);
            return;
        }
        if lb >= self.best {
            self.covered += 1u128 << (self.d - t);
            return;
        }
        if t == self.d {
            // All coordinates fixed: the bound is the weight.
            self.best = lb;
            self.best_u = self.u;
            self.covered += 1;
            return;
        }
        if self.nodes >= self.budget.nodes || self.out_of_work() {
            self.aborted = true;
            self.frontier = self.frontier.min(lb);
            return;
        }
        self.nodes += 1;
        if self.nodes.is_multiple_of(1 << 16) {
            self.report();
        }
        let bounds = self.levels[t].child_bounds();
        self.work += self.levels[t].keys.len() as u64;
        let first = usize::from(bounds[1] < bounds[0]);
        for v in [first, 1 - first] {
            if bounds[v] >= self.best {
                self.covered += 1u128 << (self.d - t - 1);
                continue;
            }
            if self.aborted {
                self.frontier = self.frontier.min(bounds[v]);
                continue;
            }
            let (upper, lower) = self.levels.split_at_mut(t + 1);
            upper[t].descend(v == 1, &mut lower[0]);
            self.work += upper[t].keys.len() as u64;
            if v == 1 {
                self.u |= 1 << t;
            }
            self.dfs(t + 1, bounds[v]);
            self.u &= !(1u64 << t);
        }
    }
}

/// Exact branch and bound over the `d <= 64` kernel coordinates, fixing coordinate 0 first.
///
/// At depth `t` the groups whose keys agree above bit `t` form a class: whatever the free
/// coordinates are, all of its groups see the same free bit, so the class weighs `a` or `b`
/// and at least `min(a, b)` (exactly `a` for the class of key 0, which is decided). The sum over
/// classes is the bound; classes merge pairwise as coordinates are fixed, so a level is computed
/// from the one above in time linear in its number of classes.
pub(super) fn branch_and_bound(
    groups: &Groups,
    d: usize,
    budget: Budget,
    progress: Progress<'_>,
) -> BnbOutcome {
    let root = Level {
        keys: groups.keys.clone(),
        a: groups.c1.clone(),
        b: groups.c0.clone(),
    };
    // The incumbent u = 0: the solution itself.
    let start: u64 = groups.c1.iter().sum();
    let root_lb: u64 = (0..root.keys.len())
        .map(|i| {
            if root.keys[i] == 0 {
                root.a[i]
            } else {
                root.a[i].min(root.b[i])
            }
        })
        .sum();
    let mut levels = vec![Level::default(); d + 1];
    levels[0] = root;
    let mut s = Bnb {
        d,
        levels,
        best: start,
        best_u: 0,
        u: 0,
        nodes: 0,
        work: 0,
        budget,
        aborted: false,
        frontier: u64::MAX,
        covered: 0,
        progress,
    };
    if root_lb < start {
        s.dfs(0, root_lb);
    }
    s.covered = 1u128 << d;
    if !s.aborted {
        s.report();
    }
    BnbOutcome {
        best: s.best,
        best_u: s.best_u,
        complete: !s.aborted,
        lower_bound: s.frontier.min(s.best).max(root_lb),
    }
}
