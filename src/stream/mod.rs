//! The streaming codec: container format, bit-sliced interleaved kernels, Read/Write adapters.
