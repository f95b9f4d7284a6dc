/* gnu_extensions.c: GNU C extensions common in real code: __attribute__((aligned(64))) on
 * arrays and types, __attribute__((noinline, unused, const, always_inline)), __restrict__ and
 * __restrict, __inline__, typeof / __typeof__, statement expressions ({ ... }) in loop bodies
 * and bounds (the classic type-safe max macro), __builtin_expect / likely(), __builtin_popcount,
 * __builtin_clz, __extension__, case ranges (case 1 ... 3:), zero-length arrays, and ranges in
 * designated initializers ([0 ... 3] = x). (The elvis operator a ?: b is in gnu_elvis.c.) */
#include <stdio.h>

#define N 64
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define max_t(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define SWAP(a, b) do { typeof(a) _t = (a); (a) = (b); (b) = _t; } while (0)

typedef double aligned_vec[N] __attribute__((aligned(64)));
static aligned_vec gx, gy;
static float buffer[N] __attribute__((aligned(64)));
struct __attribute__((packed)) packed_s { char c; int i; };
struct hdr { int n; int payload[0]; };

static const int lut[8] = {[0 ... 3] = 1, [4 ... 7] = 2};

static __inline__ __attribute__((always_inline)) double fma_like(double a, double b, double c)
{
    return a * b + c;
}

static __attribute__((noinline)) void saxpy(int n, float a, const float *__restrict__ x, float *__restrict y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

__attribute__((const)) static int classify(int v)
{
    switch (v) {
    case 0:
        return 0;
    case 1 ... 9:
        return 1;
    case 10 ... 99:
        return 2;
    default:
        return 3;
    }
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        gx[i] = i * 0.5;
        gy[i] = N - i;
        buffer[i] = (float)i / 8.0f;
    }
    float ys[N];
    for (int i = 0; i < N; i++)
        ys[i] = 1.0f;
    saxpy(N, 2.5f, buffer, ys);
    double d = 0;
    for (int i = 0; i < N; i++)
        d = fma_like(gx[i], gy[i], d) + ys[i];
    printf("d=%.17g aligned=%d packed=%zu hdr=%zu\n", d, (int)(((unsigned long)gx & 63) == 0),
           sizeof(struct packed_s), sizeof(struct hdr));

    /* statement expressions in the body and in the bound */
    int mx = 0;
    for (int i = 0; i < max_t(N / 2, 20); i++) {
        int v = ({ int t = (i * 37) % 53; t - 26; });
        mx = max_t(mx, v);
    }
    typeof(gx[0]) tsum = 0;
    __typeof__(tsum) *tp = &tsum;
    for (int i = 0; i < N; i++)
        *tp += likely(gx[i] > 1.0) ? gx[i] : -gx[i];
    printf("mx=%d tsum=%.17g\n", mx, tsum);

    int counts[4] = {0};
    int bits = 0, lz = 0, rare = 0;
    for (unsigned i = 1; i < 300; i += 7) {
        counts[classify((int)i % 120)]++;
        bits += __builtin_popcount(i);
        lz += __builtin_clz(i);
        if (unlikely(i % 50 == 0))
            rare++;
    }
    printf("counts=%d,%d,%d,%d bits=%d lz=%d rare=%d\n", counts[0], counts[1], counts[2], counts[3], bits, lz, rare);

    int a = 3, b = 9;
    SWAP(a, b);
    int el = 0;
    for (int i = 0; i < 8; i++)
        el += (i % 3 ? i % 3 : 5) * lut[i];
    __extension__ long long big = 1LL << 40;
    printf("a=%d b=%d el=%d big=%lld\n", a, b, el, big);
    return 0;
}
