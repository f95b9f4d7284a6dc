/* early_exit_search.c: early return from inside single and nested loops, break out of inner
 * loops only, flag-controlled outer loops, linear and binary search, sentinel search, a
 * sieve of Eratosthenes, loops whose trip count depends on data, side effects (printf)
 * inside loop bodies whose order must be preserved. */
#include <stdio.h>

#define N 100

static int first_negative(const int *a, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] < 0)
            return i;
    return -1;
}

static int find_2d(int a[][N], int rows, int target, int *col)
{
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < N; j++) {
            if (a[i][j] == target) {
                *col = j;
                return i;
            }
        }
    }
    *col = -1;
    return -1;
}

static int bsearch_int(const int *a, int n, int key)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid] == key)
            return mid;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -(lo + 1);
}

static int is_prime(int n)
{
    if (n < 2)
        return 0;
    for (int d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

int main(void)
{
    int a[N];
    for (int i = 0; i < N; i++)
        a[i] = 50 - (i * 13) % 61;
    printf("first_negative=%d\n", first_negative(a, N));

    static int g[8][N];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < N; j++)
            g[i][j] = (i * N + j) * 7 % 1009;
    for (int t = 500; t < 505; t++) {
        int col;
        int row = find_2d(g, 8, t, &col);
        printf("find %d -> (%d,%d)\n", t, row, col);
    }

    int sorted[N];
    for (int i = 0; i < N; i++)
        sorted[i] = i * 3 + (i % 2);
    for (int key = 40; key < 48; key++)
        printf("bsearch %d -> %d\n", key, bsearch_int(sorted, N, key));

    /* break from the inner loop only */
    int pairs = 0;
    for (int i = 0; i < 20; i++) {
        for (int j = 0; j < 20; j++) {
            if (i * j > 50)
                break;
            pairs++;
        }
    }
    /* flag-controlled outer loop */
    int found = 0, fi = -1, fj = -1;
    for (int i = 1; i < 50 && !found; i++)
        for (int j = 1; j < i; j++)
            if (i * i + j * j == 25 * 25 && j > 10) {
                found = 1;
                fi = i;
                fj = j;
                break;
            }
    printf("pairs=%d found=%d (%d,%d)\n", pairs, found, fi, fj);

    /* sieve */
    char comp[1001] = {0};
    int primes = 0, last = 0;
    for (int i = 2; i <= 1000; i++) {
        if (comp[i])
            continue;
        primes++;
        last = i;
        for (int j = i * i; j <= 1000; j += i)
            comp[j] = 1;
    }
    int agree = 1;
    for (int i = 0; i <= 1000; i++)
        if (is_prime(i) != (i >= 2 && !comp[i])) {
            agree = 0;
            break;
        }
    printf("primes=%d last=%d agree=%d\n", primes, last, agree);

    /* sentinel search and output inside the loop */
    int sent[N + 1];
    for (int i = 0; i < N; i++)
        sent[i] = i * i % 97;
    sent[N] = 42;
    int pos = 0;
    while (sent[pos] != 42)
        pos++;
    printf("sentinel pos=%d\n", pos);
    for (int i = 0; i < N; i++) {
        if (a[i] % 10 == 0)
            printf("a[%d]=%d\n", i, a[i]);
        if (a[i] == -10)
            break;
    }
    return 0;
}
