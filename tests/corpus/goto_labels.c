/* goto_labels.c: goto out of a doubly nested loop, goto-based retry loop, backward goto
 * forming a loop, labels on statements inside loops, goto to cleanup at function end,
 * a label right before a for loop, and a loop containing a forward goto to `next:`. */
#include <stdio.h>
#include <stdlib.h>

#define N 12

static int find_pair(int a[N][N], int target, int *pi, int *pj)
{
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            if (a[i][j] == target)
                goto found;
    return 0;
found:
    *pi = i;
    *pj = j;
    return 1;
}

static int collatz_steps(long x)
{
    int steps = 0;
again:
    if (x == 1)
        return steps;
    x = (x % 2) ? 3 * x + 1 : x / 2;
    steps++;
    goto again;
}

static long with_cleanup(int n)
{
    long r = -1;
    int *buf = malloc(sizeof(int) * (size_t)n);
    if (!buf)
        goto out;
    for (int i = 0; i < n; i++) {
        buf[i] = i * i;
        if (buf[i] > 400)
            goto free_buf;
    }
    r = 0;
    for (int i = 0; i < n; i++)
        r += buf[i];
free_buf:
    free(buf);
out:
    return r;
}

int main(void)
{
    int a[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = (i * 7 + j * 13) % 29;
    int pi = -1, pj = -1;
    for (int t = 20; t < 31; t++) {
        int ok = find_pair(a, t, &pi, &pj);
        printf("target %d: %d (%d,%d)\n", t, ok, pi, pj);
    }

    long tot = 0;
    for (long x = 1; x <= 30; x++)
        tot += collatz_steps(x);
    printf("collatz total=%ld\n", tot);
    printf("cleanup: %ld %ld\n", with_cleanup(15), with_cleanup(30));

    /* loop with a forward goto acting like continue, and one acting like break */
    int s = 0;
    for (int i = 0; i < 50; i++) {
        if (i % 3 == 0)
            goto next;
        if (i > 40)
            goto done;
        s += i;
    next:
        s ^= i;
    }
done:
    printf("s=%d\n", s);

    /* label before a loop, jumped to from after it (an outer retry) */
    int tries = 0, acc = 0;
retry:
    for (int i = 0; i < 5; i++)
        acc += i * (tries + 1);
    if (++tries < 3)
        goto retry;
    printf("tries=%d acc=%d\n", tries, acc);
    return 0;
}
