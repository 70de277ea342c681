//! The reusable buffers of one worker, shared by the engine's hard-decision batches and the
//! soft-decision path ([`crate::sim::soft`]), so that neither module needs the other's.

use super::kernel::KernelScratch;
use crate::gf2::BitVec;

/// Reusable buffers of one worker.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    /// The codewords sent, bit-sliced.
    pub(crate) tx: Vec<u64>,
    /// The words received, bit-sliced.
    pub(crate) rx: Vec<u64>,
    /// The kernels' buffers.
    pub(crate) kernel: KernelScratch,
    /// Soft path: the channel's agreement values, lane-major.
    pub(crate) agree: Vec<f32>,
    /// Soft path: one codeword's log-likelihood ratios.
    pub(crate) llr: Vec<f32>,
    /// Soft path: the decoded word.
    pub(crate) word: BitVec,
}
