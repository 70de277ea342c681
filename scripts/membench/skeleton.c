/* The memory traffic of encoding alien:9x9 at D = 64, without the code: per group, 512
 * bytes read and 648 written (the data rows copied, parity rows stored), plus WORK steps of
 * dependent arithmetic standing in for the parity kernel and CRC. Compares ordinary stores
 * ("plain") with non-temporal stores through a small staging ring ("ring": one output
 * stream; "ring3": three streams a third apart, as the codec visits a chunk), each against
 * glibc's memcpy of the payload timed just before it. See docs/benchmarks.md.
 *
 *   scripts/membench/run.sh           (WORK = 0, 40, 80, 160)
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef WORK
#define WORK 0
#endif
#define N (256ul << 20)
#define GD 512
#define GB 648
#define M (N / GD * GB)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static inline void group(uint8_t *o, const uint8_t *s) {
  __m256i acc = _mm256_setzero_si256();
  for (int k = 0; k < GD; k += 32) {
    __m256i v = _mm256_loadu_si256((const void *)(s + k));
    acc = _mm256_xor_si256(acc, v);
    _mm256_storeu_si256((void *)(o + k), v);
  }
  __m256i x = acc;
  for (int r = 0; r < WORK; r++)
    x = _mm256_xor_si256(_mm256_slli_epi64(x, 1), _mm256_srli_epi64(x, 3));
  for (int k = GD; k < GD + 128; k += 32) _mm256_storeu_si256((void *)(o + k), x);
  memcpy(o + GD + 128, &acc, 8);
}

__attribute__((noinline)) static void plain(uint8_t *d, const uint8_t *s, size_t n) {
  for (size_t i = 0, j = 0; i < n; i += GD, j += GB) group(d + j, s + i);
}

static inline void flush(uint8_t *d, size_t *j, uint8_t *st, size_t *pend) {
  size_t tot = *pend + GB, full = tot & ~63ul;
  for (size_t k = 0; k < full; k += 32)
    _mm256_stream_si256((void *)(d + *j + k), _mm256_loadu_si256((const void *)(st + k)));
  *pend = tot - full;
  memcpy(st, st + full, 64);
  *j += full;
}

__attribute__((noinline)) static void ring(uint8_t *d, const uint8_t *s, size_t n) {
  static uint8_t st[2048] __attribute__((aligned(64)));
  size_t j = 0, pend = 0;
  for (size_t i = 0; i < n; i += GD) {
    group(st + pend, s + i);
    flush(d, &j, st, &pend);
  }
  memcpy(d + j, st, pend);
  _mm_sfence();
}

__attribute__((noinline)) static void ring3(uint8_t *d, const uint8_t *s, size_t n) {
  static uint8_t st[3][2048] __attribute__((aligned(64)));
  size_t t = (n / GD / 3) & ~7ul, j[3], pend[3] = {0, 0, 0};
  for (int r = 0; r < 3; r++) j[r] = r * t * GB;
  for (size_t g = 0; g < t; g++)
    for (int r = 0; r < 3; r++) {
      group(st[r] + pend[r], s + (r * t + g) * GD);
      flush(d, &j[r], st[r], &pend[r]);
    }
  _mm_sfence();
}

int main(void) {
  uint8_t *s = aligned_alloc(64, N), *d = aligned_alloc(64, M + 4096), *c = aligned_alloc(64, N);
  memset(s, 1, N);
  memset(d, 2, M);
  memset(c, 3, N);
  for (int r = 0; r < 7; r++) {
    double t0 = now();
    memcpy(c, s, N);
    double m = now() - t0;
    t0 = now(); plain(d, s, N); double a = now() - t0;
    t0 = now(); ring(d, s, N); double b = now() - t0;
    t0 = now(); ring3(d, s, N); double e = now() - t0;
    printf("WORK=%d memcpy %.1f ms  plain %.2fx  ring %.2fx  ring3 %.2fx\n", WORK, m * 1e3, m / a,
           m / b, m / e);
  }
  return 0;
}
