//! The per-lane decision of the bit-sliced layer: what to flip in one codeword (one lane)
//! whose syndrome is not zero. The codec and the simulator both decide here, so that a
//! nonzero syndrome means the same thing to both, and that thing is what
//! [`BlockCode::decode`] says.
//!
//! The rows are those of the kernels ([`Kernel`], [`row_positions`]): the message positions in
//! message order, then the other positions in increasing order. A lane's syndrome key has bit
//! `q` set when check row `q` of the lane does not match (the kernel's parity of the received
//! data rows XOR the received check row `q`).
//!
//! Three answers, fastest first:
//! * the memo ([`Locator::with_memo`], codes with at most [`MEMO_MAX_BITS`] check rows): one
//!   entry per syndrome, filled with the decoder's answer the first time the syndrome is seen
//!   (the simulator, which sees the same few syndromes billions of times);
//! * the single-error table: the syndrome of every single error the decoder corrects to
//!   exactly that error, with its row (built by [`Locator::new`] for codes with `t >= 1` and
//!   at most [`KEY_BITS`] check rows);
//! * [`BlockCode::decode`] on the lane's received word, which reads all `n` rows of the lane.
//!
//! Both shortcuts rely on the decoders being syndrome decoders (the errors they correct depend
//! on the syndrome alone), which every code of [`crate::code`] is. The last answer is seldom
//! needed: the decoders are bounded-distance decoders ([`BlockCode::t`]), so a code with
//! `t = 0` detects every nonzero syndrome, and one with `t = 1` whose table holds all `n`
//! single errors corrects exactly the syndromes in the table (a syndrome it corrects is that
//! of the one error it flips) and detects every other ([`Locator::is_exhaustive`]). A lane of
//! `alien:33x33` with two errors costs a table probe instead of a 1089-bit decode. The tests
//! of both users check every lane against [`BlockCode::decode`] on the received word, and the
//! tests here check the shortcut against the decoder on every syndrome of the small codes.

use super::kernel::{Kernel, V};
use crate::code::{self, BlockCode, Status};
use crate::gf2::BitVec;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// Largest code for which the single-error table is built (building costs `n` decodes).
const TABLE_MAX_N: usize = 4096;

/// A lane's syndrome: bit `q` for check row `q`.
pub type Key = u128;

/// Most check rows for which the single-error table is built (the width of [`Key`]): every
/// `alien:MxN` with `M, N <= 64`.
pub const KEY_BITS: usize = Key::BITS as usize;

/// The syndrome key of lane `bit` of the syndrome words `syn` (check row `q` in word `q`):
/// bit `q` of the key is bit `bit` of word `q`. At most [`KEY_BITS`] words are read.
#[inline]
pub fn gather_key(syn: impl IntoIterator<Item = u64>, bit: u32) -> Key {
    // Two 64-bit halves: shifts of a `u128` by a variable count were most of the cost.
    let mut words = syn.into_iter();
    let mut lo = 0u64;
    for (q, s) in words.by_ref().take(64).enumerate() {
        lo |= ((s >> bit) & 1) << q;
    }
    let mut hi = 0u64;
    for (q, s) in words.take(64).enumerate() {
        hi |= ((s >> bit) & 1) << q;
    }
    Key::from(lo) | Key::from(hi) << 64
}

/// Most check rows for which [`Locator::with_memo`] keeps a memo (`2^bits` entries of four
/// bytes).
pub const MEMO_MAX_BITS: usize = 20;

/// Most check rows for which [`Locator::with_memo`] fills the whole memo at once (`2^bits`
/// decodes), so that it knows whether the decoder corrects anything at all.
const MEMO_FILL_BITS: usize = 12;

/// Memo entry: not seen yet.
const UNKNOWN: u32 = 0;
/// Memo entry: the decoder detects an uncorrectable error.
const DETECTED: u32 = 1;
/// Memo entry: an answer the memo does not hold (several flips, or none); ask the decoder.
const ASK: u32 = 2;
/// Memo entry `FIRST_ROW + row`: flip that row.
const FIRST_ROW: u32 = 3;

/// The rows of the bit-sliced layout: the message positions in message order, then the other
/// positions in increasing order.
pub fn row_positions(code: &dyn BlockCode) -> Vec<u32> {
    let n = code.n();
    let mut is_msg = vec![false; n];
    let mut rows: Vec<u32> = Vec::with_capacity(n);
    for &p in code.message_positions() {
        is_msg[p] = true;
        rows.push(p as u32);
    }
    rows.extend((0..n).filter(|&p| !is_msg[p]).map(|p| p as u32));
    rows
}

/// What to do with one lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaneFix {
    /// Nothing to flip: the decoder accepts the word as it is.
    Clean,
    /// Flip one row.
    Row(usize),
    /// Flip these rows.
    Rows(Vec<usize>),
    /// An uncorrectable error: leave the lane as received.
    Detected,
}

impl LaneFix {
    /// Number of bits corrected (0 when detected).
    pub fn bits(&self) -> u64 {
        match self {
            LaneFix::Clean | LaneFix::Detected => 0,
            LaneFix::Row(_) => 1,
            LaneFix::Rows(rows) => rows.len() as u64,
        }
    }

    /// Calls `flip` with every row to flip; false when the lane is detected.
    #[inline]
    pub fn apply(&self, mut flip: impl FnMut(usize)) -> bool {
        match self {
            LaneFix::Clean => {}
            &LaneFix::Row(row) => flip(row),
            LaneFix::Rows(rows) => rows.iter().for_each(|&r| flip(r)),
            LaneFix::Detected => return false,
        }
        true
    }
}

/// Syndrome (nonzero) to row, open addressing with linear probing in a table four times the
/// number of entries: one multiply and usually one probe.
#[derive(Debug, Default)]
struct SyndromeTable {
    slots: Vec<(Key, u32)>,
    shift: u32,
}

impl SyndromeTable {
    fn new(entries: &[(Key, u32)]) -> SyndromeTable {
        if entries.is_empty() {
            return SyndromeTable::default();
        }
        let size = (4 * entries.len()).next_power_of_two();
        let mut t = SyndromeTable {
            slots: vec![(0, 0); size],
            shift: 64 - size.trailing_zeros(),
        };
        for &(key, row) in entries {
            debug_assert_ne!(key, 0, "a single error has a nonzero syndrome");
            let mut i = t.slot(key);
            while t.slots[i].0 != 0 {
                i = (i + 1) & (size - 1);
            }
            t.slots[i] = (key, row);
        }
        t
    }

    fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    fn len(&self) -> usize {
        self.slots.iter().filter(|s| s.0 != 0).count()
    }

    fn slot(&self, key: Key) -> usize {
        let folded = (key as u64) ^ ((key >> 64) as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn get(&self, key: Key) -> Option<u32> {
        if self.slots.is_empty() || key == 0 {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.slot(key);
        loop {
            match self.slots[i] {
                (0, _) => return None,
                (k, row) if k == key => return Some(row),
                _ => i = (i + 1) & mask,
            }
        }
    }
}

/// The single-error tables of the codes this process used last ([`Kept`]): a table costs
/// `n` decodes and `n` kernel runs (2 ms for `alien:33x33`, about the time to decode 6 MiB
/// of it), which a process that decodes many streams of one code (`tilecode bench`, a
/// library caller) pays once. A table depends on the spec alone.
fn tables(spec: code::Spec, build: impl FnOnce() -> SyndromeTable) -> Arc<SyndromeTable> {
    static KEPT: Mutex<Kept> = Mutex::new(Kept(Vec::new()));
    if let Some(t) = KEPT.lock().expect("not poisoned").get(spec) {
        return t;
    }
    // Built outside the lock: two threads may both build it, and the second is kept.
    let table = Arc::new(build());
    KEPT.lock()
        .expect("not poisoned")
        .put(spec, Arc::clone(&table));
    table
}

/// The tables of the last [`Kept::MAX`] codes, the oldest first.
struct Kept(Vec<(code::Spec, Arc<SyndromeTable>)>);

impl Kept {
    const MAX: usize = 8;

    fn get(&self, spec: code::Spec) -> Option<Arc<SyndromeTable>> {
        self.0
            .iter()
            .find(|e| e.0 == spec)
            .map(|e| Arc::clone(&e.1))
    }

    fn put(&mut self, spec: code::Spec, table: Arc<SyndromeTable>) {
        self.0.retain(|e| e.0 != spec);
        if self.0.len() == Self::MAX {
            self.0.remove(0);
        }
        self.0.push((spec, table));
    }
}

/// A code's per-lane decisions (see the module documentation).
#[derive(Debug)]
pub struct Locator {
    code: Box<dyn BlockCode>,
    /// Codeword position stored in each row.
    pos_of_row: Vec<u32>,
    /// Row holding each codeword position.
    row_of_pos: Vec<u32>,
    /// Syndromes of the single errors `BlockCode::decode` corrects, with their rows. Empty
    /// when the code is too large for it. Shared by the locators of one code ([`tables`]).
    table: Arc<SyndromeTable>,
    /// One entry per syndrome, when kept ([`Locator::with_memo`]); shared by the threads
    /// that decode, each storing what the decoder answered.
    memo: Vec<AtomicU32>,
    /// The decoder detects every nonzero syndrome (`t = 0`: even-by-odd alien boards, parity
    /// codes): no lane needs deciding.
    detects_all: bool,
    /// The table (empty when `detects_all`) answers every syndrome: one it does not hold is
    /// detected.
    exhaustive: bool,
}

impl Locator {
    /// The decisions for `code`, whose parity rows `kernel` computes; with the single-error
    /// table when `table` (it costs `n` decodes and `n` kernel runs).
    pub fn new(code: &dyn BlockCode, kernel: &Kernel, table: bool) -> Locator {
        let pos_of_row = row_positions(code);
        let mut row_of_pos = vec![0u32; code.n()];
        for (row, &p) in pos_of_row.iter().enumerate() {
            row_of_pos[p as usize] = row as u32;
        }
        let mut l = Locator {
            code: code::build(&code.spec()),
            pos_of_row,
            row_of_pos,
            table: Arc::default(),
            memo: Vec::new(),
            detects_all: false,
            exhaustive: false,
        };
        if table {
            l.table = tables(code.spec(), || l.single_error_table(kernel));
        }
        // Bounded-distance syndrome decoders (see the module documentation).
        let has_checks = code.n() > code.k();
        l.detects_all = has_checks && code.t() == 0;
        l.exhaustive = l.detects_all || (code.t() == 1 && l.table.len() == code.n());
        l
    }

    /// The same decisions, memoised per syndrome when the code has at most
    /// [`MEMO_MAX_BITS`] check rows.
    pub fn with_memo(mut self) -> Locator {
        let r = self.code.n() - self.code.k();
        if r <= MEMO_MAX_BITS {
            self.memo = (0..1usize << r).map(|_| AtomicU32::new(UNKNOWN)).collect();
        }
        if r <= MEMO_FILL_BITS {
            let k = self.code.k();
            // The word with zero data rows and check rows `s` has syndrome `s`.
            for s in 1..1 << r {
                self.fix_lane(s, |row| row >= k && (s >> (row - k)) & 1 == 1);
            }
            // (Implied by `t = 0` already; a decoder may also detect all without it.)
            self.detects_all |= self.memo[1..]
                .iter()
                .all(|e| e.load(Ordering::Relaxed) == DETECTED);
        }
        self
    }

    /// Whether every lane with a nonzero syndrome is detected, so that callers need not ask
    /// lane by lane.
    pub fn detects_all(&self) -> bool {
        self.detects_all
    }

    /// Whether every syndrome is answered without the lane's received word: from the table,
    /// or as detected when the table does not hold it (see the module documentation).
    pub fn is_exhaustive(&self) -> bool {
        self.exhaustive
    }

    /// The syndrome of every single error that `BlockCode::decode` corrects to exactly that
    /// error: the decoder's own answers, memoised, so the fast path decodes as it does.
    fn single_error_table(&self, kernel: &Kernel) -> SyndromeTable {
        let code = self.code.as_ref();
        let (n, k) = (code.n(), code.k());
        let r = n - k;
        if r == 0 || r > KEY_BITS || n > TABLE_MAX_N || code.t() == 0 {
            return SyndromeTable::default();
        }
        // One lane (lane 0) per row, rows of 8 bytes, one after the other.
        let mut data = vec![0u8; k * 8];
        let mut par = vec![V::<1>::zero(); r];
        let mut scratch = vec![V::<1>::zero(); kernel.scratch_len()];
        let mut table = Vec::with_capacity(n);
        for row in 0..n {
            let key = if row < k {
                data[row * 8] = 1;
                kernel.parity(None, &data, &mut par, &mut scratch);
                data[row * 8] = 0;
                gather_key(par.iter().map(|v| v.0[0]), 0)
            } else {
                1 << (row - k)
            };
            let pos = self.pos_of_row[row] as usize;
            let d = code.decode(&BitVec::unit(n, pos));
            if d.status == Status::Corrected && d.errors == [pos] {
                table.push((key, row as u32));
            }
        }
        table.sort_unstable();
        // A syndrome shared by two single errors is left to the decoder.
        let mut unique = Vec::with_capacity(table.len());
        let mut i = 0;
        while i < table.len() {
            let mut j = i + 1;
            while j < table.len() && table[j].0 == table[i].0 {
                j += 1;
            }
            if j == i + 1 {
                unique.push(table[i]);
            }
            i = j;
        }
        SyndromeTable::new(&unique)
    }

    /// The syndrome key of each row's single error, in row order, when the table answers
    /// every syndrome and holds a single error of every row ([`Locator::is_exhaustive`],
    /// `t = 1`): a lane whose key is row `i`'s is corrected by flipping row `i`, and a lane
    /// with any other nonzero key is detected.
    pub fn single_error_keys(&self) -> Option<Vec<Key>> {
        if !self.exhaustive || self.detects_all {
            return None;
        }
        let mut keys = vec![0; self.pos_of_row.len()];
        for &(key, row) in &self.table.slots {
            if key != 0 {
                keys[row as usize] = key;
            }
        }
        keys.iter().all(|&k| k != 0).then_some(keys)
    }

    /// Codeword position stored in each row.
    pub fn pos_of_row(&self) -> &[u32] {
        &self.pos_of_row
    }

    /// Row holding each codeword position.
    pub fn row_of_pos(&self) -> &[u32] {
        &self.row_of_pos
    }

    /// Whether [`Locator::fix_lane`] reads its `key` (else any key will do, and the caller
    /// need not gather it).
    pub fn wants_key(&self) -> bool {
        !self.table.is_empty() || !self.memo.is_empty()
    }

    /// Number of single errors in the table.
    pub fn table_len(&self) -> usize {
        self.table.len()
    }

    /// The decision for one lane with a nonzero syndrome: `key` is its syndrome (when
    /// [`Locator::wants_key`], see [`gather_key`]), `received(row)` its received bit in `row`.
    #[inline]
    pub fn fix_lane(&self, key: Key, received: impl Fn(usize) -> bool) -> LaneFix {
        let slot = self.memo.get(key as usize);
        if let Some(slot) = slot {
            match slot.load(Ordering::Relaxed) {
                UNKNOWN | ASK => {}
                DETECTED => return LaneFix::Detected,
                e => return LaneFix::Row((e - FIRST_ROW) as usize),
            }
        } else if let Some(row) = self.table.get(key) {
            return LaneFix::Row(row as usize);
        } else if self.exhaustive {
            return LaneFix::Detected;
        }
        let fix = self.decode_lane(received);
        if let Some(slot) = slot {
            let entry = match fix {
                LaneFix::Detected => DETECTED,
                LaneFix::Row(row) => FIRST_ROW + row as u32,
                _ => ASK,
            };
            slot.store(entry, Ordering::Relaxed);
        }
        fix
    }

    /// [`BlockCode::decode`] on one lane's received word.
    #[cold]
    fn decode_lane(&self, received: impl Fn(usize) -> bool) -> LaneFix {
        let n = self.code.n();
        let mut word = BitVec::zeros(n);
        for (row, &p) in self.pos_of_row.iter().enumerate() {
            if received(row) {
                word.set(p as usize, true);
            }
        }
        let d = self.code.decode(&word);
        match d.status {
            Status::Clean => LaneFix::Clean,
            Status::Corrected => match d.errors[..] {
                [] => LaneFix::Clean,
                [e] => LaneFix::Row(self.row_of_pos[e] as usize),
                _ => LaneFix::Rows(
                    d.errors
                        .iter()
                        .map(|&e| self.row_of_pos[e] as usize)
                        .collect(),
                ),
            },
            Status::Detected => LaneFix::Detected,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::from_spec_str;

    #[test]
    fn single_errors_use_the_table_for_t1_codes() {
        for spec in [
            "alien:9x9",
            "alien:3x3",
            "secded:72",
            "hamming:7",
            "repetition:5",
        ] {
            let code = from_spec_str(spec).unwrap();
            let l = Locator::new(code.as_ref(), &Kernel::for_code(code.as_ref()), true);
            assert_eq!(l.table_len(), code.n(), "{spec}");
            assert_eq!(l.table.get(0), None);
        }
        let code = from_spec_str("parity:9").unwrap();
        let l = Locator::new(code.as_ref(), &Kernel::for_code(code.as_ref()), true);
        assert!(l.table.is_empty());
        assert!(!l.wants_key());
        let l = l.with_memo();
        assert!(l.wants_key() && l.detects_all());
        for (spec, all) in [
            ("alien:4x5", true),
            ("alien:5x4", true),
            ("alien:5x5", false),
            ("secded:13", false),
        ] {
            let code = from_spec_str(spec).unwrap();
            let kernel = Kernel::for_code(code.as_ref());
            let l = Locator::new(code.as_ref(), &kernel, true).with_memo();
            assert_eq!(l.detects_all(), all, "{spec}");
        }
    }

    /// The kept tables: the last [`Kept::MAX`] codes, the oldest dropped first, a code put
    /// again moved to the newest; a locator's table is the one it would build.
    #[test]
    fn tables_are_kept_for_the_last_codes() {
        let mut kept = Kept(Vec::new());
        let spec = |n: usize| code::Spec::Hamming(n);
        for n in 0..Kept::MAX {
            kept.put(
                spec(10 + n),
                Arc::new(SyndromeTable::new(&[(n as Key + 1, 0)])),
            );
        }
        assert!(kept.get(spec(10)).is_some());
        kept.put(spec(10), Arc::new(SyndromeTable::default()));
        kept.put(spec(99), Arc::new(SyndromeTable::default()));
        assert_eq!(kept.0.len(), Kept::MAX);
        assert!(kept.get(spec(11)).is_none(), "the oldest goes first");
        assert!(
            kept.get(spec(10)).is_some_and(|t| t.is_empty()),
            "put again, kept"
        );
        assert_eq!(kept.get(spec(12)).map(|t| t.get(3)), Some(Some(0)));
        let code = from_spec_str("alien:7x11").unwrap();
        let kernel = Kernel::for_code(code.as_ref());
        let l = Locator::new(code.as_ref(), &kernel, true);
        let fresh = l.single_error_table(&kernel);
        assert_eq!(l.table.slots, fresh.slots);
        assert_eq!(l.table_len(), 77);
    }

    /// The shortcut of [`Locator::is_exhaustive`] against the decoder, on every syndrome of
    /// every small code of every family; and which codes take it.
    #[test]
    fn exhaustive_locators_answer_every_syndrome_as_the_decoder() {
        let mut specs: Vec<code::Spec> = Vec::new();
        for m in 1..=7 {
            for n in 1..=7 {
                specs.push(code::Spec::Alien { rows: m, cols: n });
            }
        }
        for n in 2..=6 {
            specs.push(code::Spec::Product { rows: n, cols: 3 });
        }
        specs.extend((4..=40).map(code::Spec::Secded));
        specs.extend((3..=40).map(code::Spec::Hamming));
        specs.extend((1..=9).map(code::Spec::Repetition));
        specs.extend((2..=9).map(code::Spec::Parity));
        let mut taken = 0;
        for spec in specs {
            let code = code::build(&spec);
            let (n, k, t) = (code.n(), code.k(), code.t());
            let l = Locator::new(code.as_ref(), &Kernel::for_code(code.as_ref()), true);
            assert_eq!(l.is_exhaustive(), n > k && t <= 1, "{spec}");
            assert_eq!(l.detects_all(), n > k && t == 0, "{spec}");
            let keys = l.single_error_keys();
            assert_eq!(keys.is_some(), n > k && t == 1, "{spec}");
            if !l.is_exhaustive() {
                continue;
            }
            taken += 1;
            for s in 1..1 << (n - k) {
                // The word with zero data rows and check rows `s` has syndrome `s`.
                let received = |row: usize| row >= k && (s >> (row - k)) & 1 == 1;
                let fix = l.fix_lane(s, received);
                assert_eq!(fix, l.decode_lane(received), "{spec} {s:b}");
                // A single error's key is its row's, any other is detected.
                if let Some(keys) = &keys {
                    let row = keys.iter().position(|&key| key == s);
                    let want = row.map_or(LaneFix::Detected, LaneFix::Row);
                    assert_eq!(fix, want, "{spec} {s:b}");
                }
            }
        }
        assert!(taken >= 120, "{taken}");
    }

    /// Boards with more than 64 check rows have their table (keys of up to [`KEY_BITS`]
    /// bits): every single error is found in it.
    #[test]
    fn wide_syndromes_have_their_table() {
        for spec in ["alien:33x35", "alien:63x63", "alien:9x63"] {
            let code = from_spec_str(spec).unwrap();
            let kernel = Kernel::for_code(code.as_ref());
            let l = Locator::new(code.as_ref(), &kernel, true);
            assert!(code.n() - code.k() > 64, "{spec}");
            assert_eq!(l.table_len(), code.n(), "{spec}");
            assert!(l.is_exhaustive(), "{spec}");
        }
        assert_eq!(
            gather_key([1 << 5; 130], 5),
            Key::MAX,
            "at most KEY_BITS rows"
        );
        assert_eq!(gather_key([0, 2, 0, 2], 1), 0b1010);
    }

    #[test]
    fn the_memo_gives_the_decoders_answer_every_time() {
        // Every syndrome of alien:5x5 (8 check rows), asked twice: the second answer comes
        // from the memo and equals the first, the decoder's.
        let code = from_spec_str("alien:5x5").unwrap();
        let l = Locator::new(code.as_ref(), &Kernel::for_code(code.as_ref()), true).with_memo();
        let k = code.k();
        for s in 1..256 {
            // The word with zero data rows and check rows `s` has syndrome `s`.
            let received = |row: usize| row >= k && (s >> (row - k)) & 1 == 1;
            let first = l.fix_lane(s, received);
            assert_eq!(l.fix_lane(s, received), first, "{s:b}");
            assert_eq!(l.decode_lane(received), first, "{s:b}");
        }
    }
}
