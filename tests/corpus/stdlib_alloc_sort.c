/* stdlib_alloc_sort.c: <stdlib.h> malloc/calloc/realloc/free, qsort with comparators (ints,
 * doubles, structs), abs/labs, div(), rand() after srand(fixed seed), bsearch, and loops over
 * heap memory. */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int key;
    double val;
} rec_t;

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_double_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static int cmp_rec(const void *a, const void *b)
{
    const rec_t *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return (p->val > q->val) - (p->val < q->val);
}

int main(void)
{
    const int n = 300;
    srand(12345);
    int *a = malloc(n * sizeof *a);
    double *d = calloc(n, sizeof(double));
    rec_t *r = malloc(sizeof(rec_t) * n);
    if (!a || !d || !r)
        return 1;
    for (int i = 0; i < n; i++) {
        a[i] = rand() % 1000 - 500;
        d[i] = (double)(rand() % 10000) / 7.0;
        r[i].key = rand() % 10;
        r[i].val = d[i] * 0.5;
    }
    long sabs = 0;
    for (int i = 0; i < n; i++)
        sabs += abs(a[i]) + labs((long)a[i] * 3L);
    printf("sabs=%ld\n", sabs);

    qsort(a, n, sizeof a[0], cmp_int);
    qsort(d, n, sizeof d[0], cmp_double_desc);
    qsort(r, n, sizeof *r, cmp_rec);
    long h = 0;
    for (int i = 0; i < n; i++)
        h = (h * 31 + a[i]) % 1000003;
    printf("sorted ints hash=%ld min=%d max=%d\n", h, a[0], a[n - 1]);
    double acc = 0.0;
    for (int i = 0; i < n; i++)
        acc = acc * 0.999 + d[i];
    printf("sorted doubles acc=%.17g first=%.17g last=%.17g\n", acc, d[0], d[n - 1]);
    for (int i = 0; i < n; i += 37)
        printf("r[%d]={%d,%.17g}\n", i, r[i].key, r[i].val);

    int key = a[n / 3];
    int *found = bsearch(&key, a, n, sizeof(int), cmp_int);
    printf("bsearch found=%d value=%d\n", found != NULL, found ? *found : -1);

    /* grow with realloc */
    int cap = 4, len = 0;
    int *v = malloc(cap * sizeof(int));
    for (int i = 0; i < 100; i++) {
        if (len == cap) {
            cap *= 2;
            int *nv = realloc(v, cap * sizeof(int));
            if (!nv)
                return 1;
            v = nv;
        }
        v[len++] = i * i - 50 * i;
    }
    long sv = 0;
    for (int i = 0; i < len; i++)
        sv += v[i];
    printf("len=%d cap=%d sv=%ld\n", len, cap, sv);

    div_t q = div(-17, 5);
    ldiv_t lq = ldiv(1000001L, -7L);
    printf("div=%d,%d ldiv=%ld,%ld\n", q.quot, q.rem, lq.quot, lq.rem);

    free(v);
    free(r);
    free(d);
    free(a);
    return 0;
}
