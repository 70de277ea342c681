/*
 * Measurement-only harness: time M4RI's mzd_echelonize (full RREF) on a random n x n matrix
 * filled from the same splitmix64 stream as tilecode's benches (BitMatrix::random with
 * SplitMix64::new(seed): one next_u64() per 64-bit word, rows in order, words in order, bit j of a
 * row at bit j % 64 of word j / 64). Prints rank, a checksum of the result (identical to the one
 * tilecode's bench prints) and the median wall time over the runs.
 *
 * usage: bench N [RUNS] [SEED]
 */
#include <m4ri/m4ri.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static void fill(mzd_t *a, uint64_t seed) {
  uint64_t s = seed;
  wi_t words = (a->ncols + 63) / 64;
  for (rci_t i = 0; i < a->nrows; i++) {
    word *row = mzd_row(a, i);
    for (wi_t w = 0; w < words; w++) row[w] = splitmix64(&s);
    if (a->ncols % 64) row[words - 1] &= (((uint64_t)1) << (a->ncols % 64)) - 1;
  }
}

/* FNV-1a over the 64-bit words of the rows, the same fold as the Rust bench. */
static uint64_t checksum(const mzd_t *a) {
  uint64_t h = 0xcbf29ce484222325ULL;
  wi_t words = (a->ncols + 63) / 64;
  for (rci_t i = 0; i < a->nrows; i++) {
    const word *row = mzd_row((mzd_t *)a, i);
    for (wi_t w = 0; w < words; w++) {
      h ^= row[w];
      h *= 0x100000001b3ULL;
    }
  }
  return h;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* CPU time of this thread: on a shared, loaded machine it is steadier than wall time. */
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s N [RUNS] [SEED]\n", argv[0]);
    return 1;
  }
  int n = atoi(argv[1]);
  int runs = argc > 2 ? atoi(argv[2]) : 7;
  uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 1;
  if (n <= 0 || runs <= 0) {
    fprintf(stderr, "N and RUNS must be positive\n");
    return 1;
  }
  double *t = malloc(sizeof(double) * runs);
  double *c = malloc(sizeof(double) * runs);
  mzd_t *orig = mzd_init(n, n);
  fill(orig, seed);
  rci_t rank = 0;
  uint64_t sum = 0;
  for (int k = 0; k < runs; k++) {
    mzd_t *a = mzd_copy(NULL, orig);
    double t0 = now(), c0 = cpu_now();
    rank = mzd_echelonize(a, 1);
    t[k] = now() - t0;
    c[k] = cpu_now() - c0;
    sum = checksum(a);
    mzd_free(a);
  }
  qsort(t, runs, sizeof(double), cmp);
  qsort(c, runs, sizeof(double), cmp);
  printf("m4ri mzd_echelonize n=%d runs=%d seed=%llu rank=%d checksum=%016llx "
         "median_s=%.4f min_s=%.4f median_cpu_s=%.4f\n",
         n, runs, (unsigned long long)seed, (int)rank, (unsigned long long)sum, t[runs / 2], t[0],
         c[runs / 2]);
  mzd_free(orig);
  free(t);
  free(c);
  return 0;
}
