//! Channels, Monte Carlo and exact error rates, throughput measurement.
