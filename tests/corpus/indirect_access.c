/* indirect_access.c: data-dependent (non-affine) subscripts: histograms a[idx[i]]++ with
 * colliding indices, gather and scatter through permutations, CSR sparse matrix-vector product
 * (inner bounds loaded from memory: row_ptr[i] .. row_ptr[i+1]), in-place permutation cycles,
 * and a[a[i]] double indirection. */
#include <stdio.h>

#define N 200
#define BINS 16

static int idx[N], perm[N];
static double val[N], out[N];

int main(void)
{
    for (int i = 0; i < N; i++) {
        idx[i] = (i * i + 3 * i) % BINS;
        perm[i] = (i * 73 + 11) % N; /* 73 is coprime with 200: a permutation */
        val[i] = (i % 9) * 0.5 - 1.0;
    }
    int hist[BINS] = {0};
    double whist[BINS] = {0};
    for (int i = 0; i < N; i++) {
        hist[idx[i]]++;
        whist[idx[i]] += val[i] * (i + 1);
    }
    for (int b = 0; b < BINS; b++)
        printf("bin %d: %d %.17g\n", b, hist[b], whist[b]);

    /* gather / scatter */
    for (int i = 0; i < N; i++)
        out[perm[i]] = val[i] + i;
    double g = 0;
    for (int i = 0; i < N; i++)
        g = g * 0.99 + out[perm[N - 1 - i]];
    printf("gather g=%.17g\n", g);

    /* scatter with collisions: last writer wins, order matters */
    double coll[BINS];
    for (int b = 0; b < BINS; b++)
        coll[b] = -1;
    for (int i = 0; i < N; i++)
        coll[idx[i]] = val[i] * i;
    for (int b = 0; b < BINS; b++)
        printf("%.17g ", coll[b]);
    printf("\n");

    /* CSR: a banded matrix with varying row lengths */
    int row_ptr[N + 1], col[N * 5];
    double a[N * 5], x[N], y[N];
    int nnz = 0;
    for (int i = 0; i < N; i++) {
        row_ptr[i] = nnz;
        int len = 1 + i % 5;
        for (int k = 0; k < len; k++) {
            col[nnz] = (i + k * 7) % N;
            a[nnz] = 1.0 / (1 + i + k);
            nnz++;
        }
        x[i] = (i % 4) - 1.5;
    }
    row_ptr[N] = nnz;
    for (int i = 0; i < N; i++) {
        double s = 0;
        for (int k = row_ptr[i]; k < row_ptr[i + 1]; k++)
            s += a[k] * x[col[k]];
        y[i] = s;
    }
    double ys = 0;
    for (int i = 0; i < N; i++)
        ys += y[i] * (i % 3 + 1);
    printf("nnz=%d spmv=%.17g\n", nnz, ys);

    /* double indirection and in-place cycle-following permutation */
    int twice = 0;
    for (int i = 0; i < N; i++)
        twice += perm[perm[i]] % 13;
    int arr[N], done[N];
    for (int i = 0; i < N; i++) {
        arr[i] = i * 3;
        done[i] = 0;
    }
    int cycles = 0;
    for (int s = 0; s < N; s++) {
        if (done[s])
            continue;
        cycles++;
        int cur = s, carry = arr[s];
        do {
            int nxt = perm[cur];
            int tmp = arr[nxt];
            arr[nxt] = carry;
            carry = tmp;
            done[cur] = 1;
            cur = nxt;
        } while (cur != s);
    }
    long ac = 0;
    for (int i = 0; i < N; i++)
        ac = ac * 7 % 1000003 + arr[i];
    printf("twice=%d cycles=%d ac=%ld\n", twice, cycles, ac);
    return 0;
}
