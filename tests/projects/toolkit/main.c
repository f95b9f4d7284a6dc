/* main.c - the toolkit command-line driver: runs the library's sections deterministically
 * and prints what each computed, then a JSON summary with a CRC-32 of every section's output.
 *
 *   toolkit [-s SEED] [-D section.key=value]... [--json] [--list] [SECTION-PATTERN...]
 */
#include "toolkit/toolkit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Built-in settings; -D section.key=value lines are appended, so they win. */
static const char default_config[] =
    "; toolkit defaults\n"
    "[run]\n"
    "seed = 20240611\n"
    "banner = \"toolkit self-test\"\n"
    "[matrix]\n"
    "n = 120\n"
    "[image]\n"
    "width = 256\n"
    "height = 192\n"
    "[stencil]\n"
    "n = 96\n"
    "steps = 40\n"
    "heat_points = 2000\n"
    "[stats]\n"
    "rows = 4000   ; samples\n"
    "cols = 8\n"
    "[nbody]\n"
    "bodies = 200\n"
    "steps = 20\n";

typedef struct {
    tk_ini ini;
    uint64_t seed;
} config;

typedef struct {
    const char *name;
    const char *help;
    void (*run)(tk_strbuf *out, const config *cfg);
} section;

static long cfg_long(const config *cfg, const char *sec, const char *key, long fallback, long lo, long hi)
{
    long v = tk_ini_get_long(&cfg->ini, sec, key, fallback);

    if (v < lo || v > hi)
        tk_fatal("%s.%s = %ld is outside [%ld, %ld]", sec, key, v, lo, hi);
    return v;
}

/* ------------------------------------------------------------------ strings */

static void run_strings(tk_strbuf *out, const config *cfg)
{
    static const char *const patterns[][2] = {
        {"*.c", "main.c"}, {"ma?n.*", "main.h"}, {"*x*", "matrix"}, {"a*b*c", "abxxbxc"}, {"a*b", "abc"},
    };
    static const uint32_t code_points[] = {0x41, 0xE9, 0x3B1, 0x20AC, 0x4E2D, 0x1F600, 0x10FFFF};
    char line[] = "  alpha, beta ,gamma,,delta  ";
    char *parts[8], buf[64], *replaced;
    const char *utf = "na\xc3\xafve caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80!";
    const unsigned char bad[] = {'o', 'k', 0xC3, 0x28, 'x'};
    size_t i, n;
    long lv;
    double dv;

    TK_UNUSED(cfg);
    n = tk_str_split(tk_str_trim(line), ',', parts, TK_ARRAY_LEN(parts));
    tk_sb_appendf(out, "split: %zu parts:", n);
    for (i = 0; i < n; i++)
        tk_sb_appendf(out, " [%s]", tk_str_trim(parts[i]));
    tk_sb_putc(out, '\n');

    replaced = tk_str_replace("the cat sat on the mat", "at", "og");
    tk_sb_appendf(out, "replace: %s (%zu x 'og')\n", replaced, tk_str_count(replaced, "og"));
    tk_free(replaced);
    for (i = 0; i < TK_ARRAY_LEN(patterns); i++)
        tk_sb_appendf(out, "match %-6s %-8s %s\n", patterns[i][0], patterns[i][1],
                      tk_str_match(patterns[i][0], patterns[i][1]) ? "yes" : "no");
    tk_sb_appendf(out, "prefix/suffix: %d %d %d, casecmp: %d\n", tk_str_starts_with("toolkit", "tool"),
                  tk_str_ends_with("toolkit", "kit"), tk_str_ends_with("kit", "toolkit"),
                  tk_str_casecmp("HeLLo", "hello") == 0);
    tk_sb_appendf(out, "to_long: 0x7f -> %s", tk_str_to_long("0x7f", &lv) == TK_OK ? "" : "error");
    tk_sb_appendf(out, "%ld, '12ab' -> %s, '' -> %s\n", lv, tk_strerror(tk_str_to_long("12ab", &lv)),
                  tk_strerror(tk_str_to_long("", &lv)));
    tk_str_to_double("2.5e3", &dv);
    tk_sb_appendf(out, "to_double: %g\n", dv);

    tk_sb_appendf(out, "thousands: %s", tk_fmt_thousands(1234567890LL, buf, sizeof buf));
    tk_sb_appendf(out, " %s", tk_fmt_thousands(-1000, buf, sizeof buf));
    tk_sb_appendf(out, " %s\n", tk_fmt_thousands(999, buf, sizeof buf));
    tk_sb_appendf(out, "fixed: %s", tk_fmt_fixed(-31415, 4, buf, sizeof buf));
    tk_sb_appendf(out, " %s\n", tk_fmt_fixed(5, 3, buf, sizeof buf));
    tk_sb_appendf(out, "isqrt: %llu %llu %llu\n", (unsigned long long)tk_isqrt(99),
                  (unsigned long long)tk_isqrt(1ull << 62), (unsigned long long)tk_isqrt(18446744073709551615ull));

    tk_sb_appendf(out, "utf8: %zu bytes, %zu code points, valid to %zu\n", strlen(utf), tk_utf8_length(utf),
                  tk_utf8_validate((const unsigned char *)utf, strlen(utf)));
    tk_utf8_truncate(utf, 7, buf, sizeof buf);
    tk_sb_appendf(out, "utf8 truncate(7): '%s'\n", buf);
    tk_sb_appendf(out, "utf8 invalid at %zu of %zu\n", tk_utf8_validate(bad, sizeof bad), sizeof bad);
    tk_sb_append(out, "utf8 encode:");
    for (i = 0; i < TK_ARRAY_LEN(code_points); i++) {
        unsigned char enc[4];
        size_t len = tk_utf8_encode(code_points[i], enc), used, k;
        uint32_t back = tk_utf8_decode(enc, len, &used);

        tk_sb_appendf(out, " U+%04X=", (unsigned)code_points[i]);
        for (k = 0; k < len; k++)
            tk_sb_appendf(out, "%02X", enc[k]);
        if (back != code_points[i] || used != len)
            tk_sb_append(out, "(MISMATCH)");
    }
    tk_sb_appendf(out, "\nutf8 surrogate encodes to %zu bytes\n", tk_utf8_encode(0xD800, (unsigned char *)buf));
}

/* --------------------------------------------------------------- containers */

typedef struct {
    int key;
    int seq;
    tk_list_node link;
} item;

static int item_cmp(const tk_list_node *a, const tk_list_node *b)
{
    const item *x = TK_CONTAINER_OF(a, item, link), *y = TK_CONTAINER_OF(b, item, link);

    return (x->key > y->key) - (x->key < y->key);
}

static int is_even(const void *elem, void *ctx)
{
    TK_UNUSED(ctx);
    return *(const int *)elem % 2 == 0;
}

static int int_desc(const void *a, const void *b, void *ctx)
{
    return -tk_cmp_int(a, b, ctx);
}

static void run_containers(tk_strbuf *out, const config *cfg)
{
    tk_prng rng;
    tk_vec v;
    tk_list list;
    tk_list_node *node;
    tk_hashmap map;
    tk_pqueue pq;
    tk_arena arena;
    tk_arena_mark mark;
    tk_interner in;
    item *items;
    int values[1000], sorted_ok = 1, prev, stable = 1, last_key = -1, last_seq = -1, key;
    long sum = 0;
    size_t i, removed, n;
    char word[32];

    tk_prng_seed(&rng, cfg->seed);

    /* Dynamic array. */
    tk_vec_init(&v, sizeof(int));
    for (i = 0; i < 50; i++) {
        int x = (int)(i * i % 37);

        tk_vec_push(&v, &x);
    }
    key = -1;
    tk_vec_insert(&v, 0, &key);
    tk_vec_remove(&v, 10);
    removed = tk_vec_filter(&v, is_even, NULL);
    tk_sb_appendf(out, "vec: len %zu after removing %zu odd, first %d last %d\n", v.len, removed,
                  TK_VEC_GET(&v, int, 0), TK_VEC_GET(&v, int, v.len - 1));
    tk_vec_free(&v);

    /* Linked list, stable merge sort. */
    tk_list_init(&list);
    items = tk_malloc(300 * sizeof *items);
    for (i = 0; i < 300; i++) {
        items[i].key = tk_prng_range(&rng, 0, 20);
        items[i].seq = (int)i;
        tk_list_push_back(&list, &items[i].link);
    }
    tk_list_sort(&list, item_cmp);
    TK_LIST_FOREACH(node, &list) {
        const item *it = TK_CONTAINER_OF(node, item, link);

        if (it->key < last_key || (it->key == last_key && it->seq < last_seq))
            stable = 0;
        last_key = it->key;
        last_seq = it->seq;
    }
    while ((node = tk_list_pop_front(&list)) != NULL)
        sum += TK_CONTAINER_OF(node, item, link)->key;
    tk_sb_appendf(out, "list: 300 items sorted %s, key sum %ld\n", stable ? "stably" : "WRONGLY", sum);
    tk_free(items);

    /* Hash map with removals and reinsertion. */
    tk_hm_init(&map);
    for (i = 0; i < 2000; i++) {
        tk_prng_word(&rng, word, 3, 9);
        tk_hm_put(&map, word, (void *)(uintptr_t)(i + 1));
    }
    n = map.len;
    {
        tk_hm_iter it;
        const char *k;
        size_t dropped = 0;
        char *victims[64];
        size_t nv = 0;

        tk_hm_iter_init(&it, &map);
        while (tk_hm_iter_next(&it, &k, NULL) && nv < TK_ARRAY_LEN(victims))
            if (strlen(k) == 4)
                victims[nv++] = tk_strdup(k);
        for (i = 0; i < nv; i++) {
            dropped += (size_t)tk_hm_remove(&map, victims[i], NULL);
            if (tk_hm_get(&map, victims[i]))
                tk_sb_append(out, "hashmap: removed key still present\n");
        }
        tk_hm_put(&map, victims[0], (void *)(uintptr_t)42);
        tk_sb_appendf(out, "hashmap: %zu distinct of 2000 words, dropped %zu, now %zu (cap %zu), '%s' -> %lu\n", n,
                      dropped, map.len, map.cap, victims[0], (unsigned long)(uintptr_t)tk_hm_get(&map, victims[0]));
        for (i = 0; i < nv; i++)
            tk_free(victims[i]);
    }
    tk_hm_free(&map, NULL);

    /* Priority queue: heap sort of pseudo-random values, both by push and by heapify. */
    for (i = 0; i < TK_ARRAY_LEN(values); i++)
        values[i] = tk_prng_range(&rng, -5000, 5000);
    tk_pq_init(&pq, tk_cmp_int, NULL);
    for (i = 0; i < TK_ARRAY_LEN(values); i++)
        tk_pq_push(&pq, &values[i]);
    prev = -100000;
    sum = 0;
    while (pq.len > 0) {
        int x = *(int *)tk_pq_pop(&pq);

        if (x < prev)
            sorted_ok = 0;
        prev = x;
        sum += x;
    }
    {
        void *ptrs[TK_ARRAY_LEN(values)];

        for (i = 0; i < TK_ARRAY_LEN(values); i++)
            ptrs[i] = &values[i];
        tk_pq_heapify(&pq, ptrs, TK_ARRAY_LEN(values));
        tk_sb_appendf(out, "pqueue: pops %s, sum %ld, heapify min %d\n", sorted_ok ? "ascending" : "OUT OF ORDER", sum,
                      *(int *)tk_pq_peek(&pq));
    }
    tk_pq_free(&pq);

    /* Sorting with a comparator, binary search. */
    tk_sort(values, TK_ARRAY_LEN(values), sizeof values[0], int_desc, NULL);
    tk_sb_appendf(out, "sort desc: %d .. %d, sorted %d\n", values[0], values[TK_ARRAY_LEN(values) - 1],
                  tk_is_sorted(values, TK_ARRAY_LEN(values), sizeof values[0], int_desc, NULL));
    tk_sort(values, TK_ARRAY_LEN(values), sizeof values[0], tk_cmp_int, NULL);
    key = 0;
    i = tk_lower_bound(values, TK_ARRAY_LEN(values), sizeof values[0], &key, tk_cmp_int, NULL);
    tk_sb_appendf(out, "sort asc: %zu negative, median %d\n", i, values[TK_ARRAY_LEN(values) / 2]);

    /* Arena with save/restore, and interning. */
    tk_arena_init(&arena, 1024);
    for (i = 0; i < 100; i++)
        tk_arena_alloc(&arena, 24);
    mark = tk_arena_save(&arena);
    for (i = 0; i < 200; i++)
        tk_arena_strdup(&arena, "temporary string");
    tk_sb_appendf(out, "arena: %zu bytes in %zu chunks, ", arena.bytes_used, arena.chunks);
    tk_arena_restore(&arena, mark);
    tk_sb_appendf(out, "restored to %zu bytes in %zu chunks\n", arena.bytes_used, arena.chunks);
    tk_arena_free(&arena);
    tk_intern_init(&in);
    {
        const char *a = tk_intern(&in, "hello"), *b;

        for (i = 0; i < 500; i++) {
            tk_prng_word(&rng, word, 1, 3);
            tk_intern(&in, word);
        }
        b = tk_intern_n(&in, "hello world", 5);
        tk_sb_appendf(out, "intern: %zu strings, %zu lookups, %zu hits, same pointer %d\n", tk_intern_count(&in),
                      in.lookups, in.hits, a == b);
    }
    tk_intern_free(&in);
}

/* ------------------------------------------------------------------ codecs */

static void run_codecs(tk_strbuf *out, const config *cfg)
{
    static const char *const vectors[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    unsigned char data[300], back[300];
    tk_strbuf enc;
    tk_prng rng;
    size_t i, n;
    tk_status s;

    tk_sb_init(&enc);
    for (i = 0; i < TK_ARRAY_LEN(vectors); i++) {
        tk_sb_reset(&enc);
        tk_base64_encode(&enc, vectors[i], strlen(vectors[i]));
        tk_sb_appendf(out, "base64('%s') = '%s'\n", vectors[i], tk_sb_cstr(&enc));
    }
    tk_prng_seed(&rng, cfg->seed ^ 0xC0DEC);
    for (i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(tk_prng_next(&rng) >> 56);
    tk_sb_reset(&enc);
    tk_base64_encode(&enc, data, sizeof data);
    n = sizeof back;
    s = tk_base64_decode(tk_sb_cstr(&enc), back, &n);
    tk_sb_appendf(out, "base64 round trip of %zu bytes: %s, %zu chars, %s\n", sizeof data, tk_strerror(s), enc.len,
                  n == sizeof data && memcmp(back, data, n) == 0 ? "identical" : "DIFFERENT");
    n = sizeof back;
    tk_sb_appendf(out, "base64 decode 'Zm9v!': %s\n", tk_strerror(tk_base64_decode("Zm9v!", back, &n)));
    n = 2;
    tk_sb_appendf(out, "base64 decode 'Zm9vYmFy' into 2 bytes: %s\n", tk_strerror(tk_base64_decode("Zm9vYmFy", back, &n)));

    tk_sb_appendf(out, "crc32('123456789') = %08x\n", (unsigned)tk_crc32(0, "123456789", 9));
    tk_sb_appendf(out, "crc32 in two parts = %08x\n", (unsigned)tk_crc32(tk_crc32(0, "12345", 5), "6789", 4));
    tk_sb_appendf(out, "crc32(random) = %08x\n", (unsigned)tk_crc32(0, data, sizeof data));
    tk_sb_appendf(out, "adler32('Wikipedia') = %08x\n", (unsigned)tk_adler32(0, "Wikipedia", 9));
    tk_sb_appendf(out, "fnv1a32('') = %08x, fnv1a32('a') = %08x\n", (unsigned)tk_fnv1a32("", 0),
                  (unsigned)tk_fnv1a32("a", 1));
    tk_sb_appendf(out, "fnv1a64('toolkit') = %016llx\n", (unsigned long long)tk_fnv1a64_str("toolkit"));

    tk_sb_free(&enc);
}

/* -------------------------------------------------------------------- expr */

static void run_expr(tk_strbuf *out, const config *cfg)
{
    static const char *const programs[] = {
        "1 + 2 * 3",
        "-2 ^ 2",
        "2 ^ 3 ^ 2",
        "x = 3; y = 4; hypot(x, y)",
        "a = 10; b = 3; a % b + a / b",
        "max(1, 7, 3) - min(4, -2) + clamp(15, 0, 10)",
        "n = 27; n % 2 == 0 ? n / 2 : 3 * n + 1",
        "!(1 < 2 && 2 < 3) || 0",
        "sqrt(2) * sqrt(2) - 2 < 1e-12",
        "r = 2.5; area = 3.14159265 * r ^ 2; floor(area * 100) / 100",
        "undefined_var + 1",
        "1 / (2 - 2)",
        "nosuch(1)",
        "abs(1, 2)",
        "3 +",
        "(1 + 2",
        "4 = 5",
        "x = 1 y = 2",
        "",
    };
    tk_strbuf printed;
    size_t i;

    TK_UNUSED(cfg);
    tk_sb_init(&printed);
    for (i = 0; i < TK_ARRAY_LEN(programs); i++) {
        tk_expr_ctx ctx;
        double result = 0.0;
        tk_status s;
        char msg[200];

        tk_expr_ctx_init(&ctx);
        s = tk_expr_run(&ctx, programs[i], &result);
        if (s == TK_OK) {
            tk_sb_reset(&printed);
            tk_expr_print(&printed, tk_expr_parse(&ctx, programs[i]));
            tk_sb_appendf(out, "expr %-46s = %.6g   [%s]\n", programs[i], result, tk_sb_cstr(&printed));
        } else {
            tk_sb_appendf(out, "expr %-46s : %s\n", programs[i], tk_error_format(&ctx.err, msg, sizeof msg));
        }
        tk_expr_ctx_free(&ctx);
    }
    tk_sb_free(&printed);

    /* A longer program: the collatz length of 27 by unrolled steps through conditionals. */
    {
        tk_expr_ctx ctx;
        tk_strbuf prog;
        double result, steps;
        int k;

        tk_expr_ctx_init(&ctx);
        tk_sb_init(&prog);
        tk_sb_append(&prog, "n = 27; steps = 0;\n");
        for (k = 0; k < 120; k++)
            tk_sb_append(&prog, "steps = steps + (n != 1); n = n == 1 ? 1 : n % 2 == 0 ? n / 2 : 3 * n + 1;\n");
        tk_sb_append(&prog, "n");
        if (tk_expr_run(&ctx, tk_sb_cstr(&prog), &result) == TK_OK && tk_expr_get(&ctx, "steps", &steps))
            tk_sb_appendf(out, "collatz(27): n = %g after %g steps, %lu nodes evaluated\n", result, steps, ctx.evals);
        tk_sb_free(&prog);
        tk_expr_ctx_free(&ctx);
    }
}

/* ------------------------------------------------------------------ config */

static void run_config(tk_strbuf *out, const config *cfg)
{
    static const char *const broken[] = {
        "[section\nkey = 1\n",
        "[ok]\njust a line\n",
        "[ok]\n = value\n",
        "[ok]\nkey = \"unterminated\n",
    };
    tk_ini ini;
    tk_error err;
    const tk_ini_entry *e;
    size_t i;
    char msg[200];

    tk_sb_appendf(out, "config: %zu entries in %zu sections\n", cfg->ini.count, cfg->ini.sections);
    for (e = cfg->ini.first; e; e = e->next)
        tk_sb_appendf(out, "  line %2d: %s.%s = '%s'\n", e->line, e->section, e->key, e->value);
    tk_sb_appendf(out, "missing: %s\n", tk_ini_get_default(&cfg->ini, "run", "nothing", "(default)"));

    tk_error_clear(&err);
    if (tk_ini_parse(&ini, "# comment\n[Server]\nHost = example.org ; trailing\nport=8080\n"
                            "verbose = Yes\npath = \"/a b/\\\"c\\\"\"\nport = 8081\n",
                     &err) == TK_OK) {
        tk_sb_appendf(out, "server: host '%s' port %ld verbose '%s' path '%s'\n", tk_ini_get(&ini, "server", "host"),
                      tk_ini_get_long(&ini, "SERVER", "Port", 0), tk_ini_get(&ini, "server", "verbose"),
                      tk_ini_get(&ini, "server", "path"));
        tk_ini_free(&ini);
    }
    for (i = 0; i < TK_ARRAY_LEN(broken); i++) {
        tk_error_clear(&err);
        tk_ini_parse(&ini, broken[i], &err);
        tk_sb_appendf(out, "broken config %zu: %s\n", i + 1, tk_error_format(&err, msg, sizeof msg));
    }
}

/* ------------------------------------------------------------------ matrix */

static double small_dyadic(void *ctx, int i, int j)
{
    TK_UNUSED(i);
    TK_UNUSED(j);
    /* Multiples of 1/8 in [-4, 4): products and sums of a few hundred stay exact. */
    return (double)((int)tk_prng_below(ctx, 64) - 32) / 8.0;
}

static void run_matrix(tk_strbuf *out, const config *cfg)
{
    int n = (int)cfg_long(cfg, "matrix", "n", 120, 2, 2000), i;
    tk_matrix *a = tk_mat_new(n, n), *b = tk_mat_new(n, n + 3), *c = tk_mat_new(n, n + 3);
    tk_matrix *at = tk_mat_new(n, n), *bt = tk_mat_new(n + 3, n), *ct = tk_mat_new(n + 3, n), *ctt = tk_mat_new(n, n + 3);
    double *x = tk_malloc((size_t)(n + 3) * sizeof *x), *y = tk_malloc((size_t)n * sizeof *y), ysum = 0.0;
    tk_prng rng;

    tk_prng_seed(&rng, cfg->seed ^ 0x3a7);
    tk_mat_fill(a, small_dyadic, &rng);
    tk_mat_fill(b, small_dyadic, &rng);
    tk_sb_appendf(out, "mul status %s", tk_strerror(tk_mat_mul(a, b, c)));
    tk_sb_appendf(out, ", bad shapes: %s\n", tk_strerror(tk_mat_mul(b, a, c)));
    tk_sb_appendf(out, "C = A B (%dx%d): sum %.6g trace %.6g c[0][0] %.6g c[n-1][n+2] %.6g\n", c->rows, c->cols,
                  tk_mat_sum(c), tk_mat_trace(c), c->data[0], c->data[(n - 1) * c->cols + n + 2]);

    /* (A B)^T = B^T A^T, exactly, with these values. */
    tk_mat_transpose(a, at);
    tk_mat_transpose(b, bt);
    tk_mat_mul(bt, at, ct);
    tk_mat_transpose(ct, ctt);
    tk_sb_appendf(out, "max |AB - (B^T A^T)^T| = %g\n", tk_mat_max_abs_diff(c, ctt));

    /* 2 C + 0.5 A B = 2.5 C, again exactly. */
    tk_dgemm_scaled(n, n, n + 3, 0.5, a->data, b->data, 2.0, ctt->data);
    tk_sb_appendf(out, "2 C + 0.5 A B: sum %.6g, 2.5 sum(C) %.6g\n", tk_mat_sum(ctt), 2.5 * tk_mat_sum(c));

    for (i = 0; i < n + 3; i++)
        x[i] = (double)(i % 5) - 2.0;
    tk_matvec(n, n + 3, c->data, x, y);
    for (i = 0; i < n; i++)
        ysum += fabs(y[i]);
    tk_sb_appendf(out, "|C x|_1 = %.6g, y[0] = %.6g\n", ysum, y[0]);

    tk_free(x);
    tk_free(y);
    tk_mat_free(a);
    tk_mat_free(b);
    tk_mat_free(c);
    tk_mat_free(at);
    tk_mat_free(bt);
    tk_mat_free(ct);
    tk_mat_free(ctt);
}

/* ------------------------------------------------------------------- image */

static void run_image(tk_strbuf *out, const config *cfg)
{
    int w = (int)cfg_long(cfg, "image", "width", 256, 8, 8192);
    int h = (int)cfg_long(cfg, "image", "height", 192, 8, 8192);
    tk_image *img = tk_image_new(w, h), *blur = tk_image_new(w, h), *sep = tk_image_new(w, h);
    tk_image *tmp = tk_image_new(w, h), *grad = tk_image_new(w, h), *half = tk_image_new(w / 2, h / 2);
    double mean;
    float lo, hi;

    tk_image_pattern(img, (int)(cfg->seed % 1000));
    tk_image_stats(img, &mean, &lo, &hi);
    tk_sb_appendf(out, "pattern %dx%d: mean %.6g range [%g, %g]\n", w, h, mean, lo, hi);
    tk_box_blur(w, h, img->px, blur->px);
    tk_image_stats(blur, &mean, &lo, &hi);
    tk_sb_appendf(out, "box blur: mean %.6g range [%.6g, %.6g], crc %08x\n", mean, lo, hi,
                  (unsigned)tk_crc32(0, blur->px, (size_t)w * (size_t)h * sizeof(float)));
    tk_blur_separable(w, h, img->px, tmp->px, sep->px);
    tk_image_stats(sep, &mean, &lo, &hi);
    tk_sb_appendf(out, "separable blur: mean %.6g range [%.6g, %.6g], crc %08x\n", mean, lo, hi,
                  (unsigned)tk_crc32(0, sep->px, (size_t)w * (size_t)h * sizeof(float)));
    tk_gradient(w, h, img->px, grad->px);
    tk_image_stats(grad, &mean, &lo, &hi);
    tk_sb_appendf(out, "gradient: mean %.6g max %.6g\n", mean, hi);
    tk_downsample(w, h, blur->px, half->px);
    tk_image_stats(half, &mean, &lo, &hi);
    tk_sb_appendf(out, "downsampled %dx%d: mean %.6g range [%.6g, %.6g]\n", half->w, half->h, mean, lo, hi);
    tk_image_free(img);
    tk_image_free(blur);
    tk_image_free(sep);
    tk_image_free(tmp);
    tk_image_free(grad);
    tk_image_free(half);
}

/* ----------------------------------------------------------------- stencil */

static void run_stencil(tk_strbuf *out, const config *cfg)
{
    int n = (int)cfg_long(cfg, "stencil", "n", 96, 4, 4096);
    int steps = (int)cfg_long(cfg, "stencil", "steps", 40, 0, 100000);
    int points = (int)cfg_long(cfg, "stencil", "heat_points", 2000, 3, 1000000);
    double *u = tk_calloc((size_t)points, sizeof *u), *tmp = tk_calloc((size_t)points, sizeof *tmp);
    double *a = tk_calloc((size_t)n * (size_t)n, sizeof *a), *b = tk_calloc((size_t)n * (size_t)n, sizeof *b);
    double *gs = tk_calloc((size_t)n * (size_t)n, sizeof *gs), heat = 0.0;
    int i;

    /* A hot spot in the middle of a cold rod. */
    for (i = points / 2 - 10; i < points / 2 + 10; i++)
        u[i] = 100.0;
    tk_heat_1d(points, steps * 5, 0.25, u, tmp);
    for (i = 0; i < points; i++)
        heat += u[i];
    tk_sb_appendf(out, "heat 1d: %d points, %d steps: total %.6g, centre %.6g, u[centre+30] %.6g\n", points, steps * 5,
                  heat, u[points / 2], u[points / 2 + 30]);

    /* Laplace problem: top edge held at 1, the rest at 0. */
    for (i = 0; i < n; i++) {
        a[i] = b[i] = gs[i] = 1.0;
    }
    tk_jacobi_2d(n, steps, a, b);
    tk_gauss_seidel_2d(n, steps, gs);
    tk_sb_appendf(out, "jacobi %dx%d, %d sweeps: a[1][n/2] %.6g a[n/4][n/2] %.6g, laplacian^2 %.6g\n", n, n, steps,
                  a[1 * n + n / 2], a[(n / 4) * n + n / 2], tk_grid_laplacian_norm(n, a));
    tk_sb_appendf(out, "gauss-seidel: gs[1][n/2] %.6g, max |jacobi - gs| %.6g\n", gs[1 * n + n / 2],
                  tk_grid_residual(n, a, gs));
    tk_free(u);
    tk_free(tmp);
    tk_free(a);
    tk_free(b);
    tk_free(gs);
}

/* ------------------------------------------------------------------- stats */

static void run_stats(tk_strbuf *out, const config *cfg)
{
    int rows = (int)cfg_long(cfg, "stats", "rows", 4000, 2, 10000000);
    int cols = (int)cfg_long(cfg, "stats", "cols", 8, 2, 64);
    double *x = tk_malloc((size_t)rows * (size_t)cols * sizeof *x);
    double *z = tk_malloc((size_t)rows * (size_t)cols * sizeof *z);
    double *mean = tk_malloc((size_t)cols * sizeof *mean), *var = tk_malloc((size_t)cols * sizeof *var);
    double *lo = tk_malloc((size_t)cols * sizeof *lo), *hi = tk_malloc((size_t)cols * sizeof *hi);
    double *cov = tk_malloc((size_t)cols * (size_t)cols * sizeof *cov);
    double *corr = tk_malloc((size_t)cols * (size_t)cols * sizeof *corr);
    double zmean[64], zvar[64];
    tk_prng rng;
    int i, j;

    tk_prng_seed(&rng, cfg->seed * 31 + 1);
    for (i = 0; i < rows; i++) {
        double base = tk_prng_dyadic(&rng, 12) * 10.0;

        /* Column j: base scaled by j plus its own noise, so neighbouring columns correlate. */
        for (j = 0; j < cols; j++)
            x[i * cols + j] = base * (double)(j % 3) + tk_prng_dyadic(&rng, 12) * (double)(j + 1);
    }
    tk_col_mean_var(rows, cols, x, mean, var);
    tk_sb_appendf(out, "stats %d x %d:\n", rows, cols);
    for (j = 0; j < cols; j++)
        tk_sb_appendf(out, "  col %d: mean %.6g sd %.6g\n", j, mean[j], sqrt(var[j]));
    tk_col_standardize(rows, cols, x, mean, var, z);
    tk_col_mean_var(rows, cols, z, zmean, zvar);
    for (j = 0; j < cols; j++) {
        /* Print rounded: these are 0 and 1 up to rounding. */
        if (fabs(zmean[j]) > 1e-9 || fabs(zvar[j] - 1.0) > 1e-9)
            tk_sb_appendf(out, "  standardized col %d is off: mean %g var %g\n", j, zmean[j], zvar[j]);
    }
    tk_sb_append(out, "  standardized columns: mean 0, variance 1\n");
    tk_col_covariance(rows, cols, x, mean, cov);
    tk_col_correlation(cols, cov, corr);
    tk_sb_append(out, "  correlation:\n");
    for (i = 0; i < cols; i++) {
        tk_sb_append(out, "   ");
        for (j = 0; j < cols; j++) /* near-zero values print as 0.000, whatever their sign */
            tk_sb_appendf(out, " %6.3f", fabs(corr[i * cols + j]) < 5e-4 ? 0.0 : corr[i * cols + j]);
        tk_sb_putc(out, '\n');
    }
    tk_col_minmax(rows, cols, x, lo, hi, z);
    tk_sb_appendf(out, "  col 0 range [%.6g, %.6g], col %d range [%.6g, %.6g], scaled z[0][0] %.6g\n", lo[0], hi[0],
                  cols - 1, lo[cols - 1], hi[cols - 1], z[0]);
    tk_free(x);
    tk_free(z);
    tk_free(mean);
    tk_free(var);
    tk_free(lo);
    tk_free(hi);
    tk_free(cov);
    tk_free(corr);
}

/* ------------------------------------------------------------------- nbody */

static void run_nbody(tk_strbuf *out, const config *cfg)
{
    int n = (int)cfg_long(cfg, "nbody", "bodies", 200, 2, 100000);
    int steps = (int)cfg_long(cfg, "nbody", "steps", 20, 0, 100000);
    const double dt = 1e-3, eps = 0.05;
    tk_bodies b;
    tk_prng rng;
    double e0, e1, p[3];
    int s;

    tk_prng_seed(&rng, cfg->seed ^ 0xB0D1E5);
    tk_bodies_init(&b, n, &rng);
    e0 = tk_nbody_energy(&b, eps);
    for (s = 0; s < steps; s++)
        tk_nbody_step(&b, dt, eps);
    e1 = tk_nbody_energy(&b, eps);
    tk_nbody_momentum(&b, p);
    tk_sb_appendf(out, "nbody %d bodies, %d steps: energy %.6g -> %.6g (drift %.2e)\n", n, steps, e0, e1,
                  fabs((e1 - e0) / e0));
    /* Pairwise forces cancel: the total momentum is zero up to rounding. */
    tk_sb_appendf(out, "momentum conserved: %s, body 0 at (%.6f, %.6f, %.6f)\n",
                  fabs(p[0]) + fabs(p[1]) + fabs(p[2]) < 1e-9 ? "yes" : "NO", b.x[0], b.y[0], b.z[0]);
    tk_bodies_free(&b);
}

/* -------------------------------------------------------------------- json */

static void run_json(tk_strbuf *out, const config *cfg)
{
    tk_strbuf buf;
    tk_json j;

    tk_sb_init(&buf);
    tk_json_init(&j, &buf, 2);
    tk_json_begin_object(&j);
    tk_json_key(&j, "name");
    tk_json_string(&j, "tool\"kit\"\n\ttab \x01 caf\xc3\xa9");
    tk_json_key(&j, "seed");
    tk_json_int(&j, (long)(cfg->seed % 1000000));
    tk_json_key(&j, "values");
    tk_json_begin_array(&j);
    tk_json_double(&j, 0.1);
    tk_json_double(&j, -2.5e-7);
    tk_json_double(&j, 1.0 / 3.0);
    tk_json_double(&j, NAN);
    tk_json_bool(&j, true);
    tk_json_null(&j);
    tk_json_end_array(&j);
    tk_json_key(&j, "empty");
    tk_json_begin_object(&j);
    tk_json_end_object(&j);
    tk_json_end_object(&j);
    tk_sb_appendf(out, "%s\nstatus %s\n", tk_sb_cstr(&buf), tk_strerror(tk_json_finish(&j)));

    /* Misuse: a value where a key belongs, an unclosed array. */
    tk_json_init(&j, &buf, 0);
    tk_json_begin_object(&j);
    tk_json_int(&j, 1);
    tk_sb_appendf(out, "value without key: %s\n", tk_strerror(tk_json_finish(&j)));
    tk_json_init(&j, &buf, 0);
    tk_json_begin_array(&j);
    tk_sb_appendf(out, "unclosed: %s\n", tk_strerror(tk_json_finish(&j)));
    tk_sb_free(&buf);
}

/* -------------------------------------------------------------------- main */

static const section sections[] = {
    {"strings", "string helpers, number formatting, UTF-8", run_strings},
    {"containers", "vector, list, hash map, heap, sort, bit set, ring buffer, arena", run_containers},
    {"codecs", "base64, CRC-32, Adler-32, FNV", run_codecs},
    {"expr", "expression parser and evaluator", run_expr},
    {"config", "INI parsing", run_config},
    {"matrix", "dense matrix products", run_matrix},
    {"image", "image filters", run_image},
    {"stencil", "heat equation and Laplace relaxation", run_stencil},
    {"stats", "column statistics", run_stats},
    {"nbody", "n-body gravity", run_nbody},
    {"json", "JSON writer", run_json},
};

enum { OPT_HELP, OPT_SEED, OPT_DEFINE, OPT_JSON, OPT_LIST, OPT_QUIET };

static const tk_opt_spec options[] = {
    {"help", 'h', TK_OPT_FLAG, OPT_HELP, "show this help"},
    {"seed", 's', TK_OPT_VALUE, OPT_SEED, "seed of the pseudo-random generator"},
    {"define", 'D', TK_OPT_VALUE, OPT_DEFINE, "override a setting: section.key=value"},
    {"json", 'j', TK_OPT_FLAG, OPT_JSON, "print the summary as JSON"},
    {"list", 'l', TK_OPT_FLAG, OPT_LIST, "list the sections"},
    {"quiet", 'q', TK_OPT_FLAG, OPT_QUIET, "print only the summary"},
};

/* The default configuration plus every -D section.key=value, as INI text. */
static void build_config(config *cfg, const tk_opt_result *res)
{
    tk_strbuf text;
    tk_error err;
    size_t i;
    char msg[200];

    tk_sb_init(&text);
    tk_sb_append(&text, default_config);
    for (i = 0; i < res->nhits; i++) {
        const char *def = res->hits[i].value, *dot, *eq;

        if (res->hits[i].id != OPT_DEFINE)
            continue;
        dot = strchr(def, '.');
        eq = strchr(def, '=');
        if (!dot || !eq || dot > eq)
            tk_fatal("-D expects section.key=value, got '%s'", def);
        tk_sb_appendf(&text, "[%.*s]\n%s\n", (int)(dot - def), def, dot + 1);
    }
    tk_error_clear(&err);
    if (tk_ini_parse(&cfg->ini, tk_sb_cstr(&text), &err) != TK_OK)
        tk_fatal("configuration: %s", tk_error_format(&err, msg, sizeof msg));
    tk_sb_free(&text);
    cfg->seed = (uint64_t)tk_ini_get_long(&cfg->ini, "run", "seed", 1);
    if (tk_opts_value(res, OPT_SEED)) {
        long seed;

        if (tk_str_to_long(tk_opts_value(res, OPT_SEED), &seed) != TK_OK)
            tk_fatal("--seed expects a number, got '%s'", tk_opts_value(res, OPT_SEED));
        cfg->seed = (uint64_t)seed;
    }
}

static int selected(const section *s, const tk_opt_result *res)
{
    size_t i;

    if (res->npositional == 0)
        return 1;
    for (i = 0; i < res->npositional; i++)
        if (tk_str_match(res->positional[i], s->name))
            return 1;
    return 0;
}

/* Checks the option parser itself on a fixed command line, as the first lines of output. */
static void self_test_options(void)
{
    char *argv[] = {"toolkit", "-qj", "--se=5", "-D", "a.b=1", "-Dc.d=2", "--", "-x", "pos", NULL};
    char *bad[] = {"toolkit", "--nope", NULL};
    tk_opt_result res;
    tk_status s = tk_opts_parse(options, TK_ARRAY_LEN(options), 9, argv, &res);
    char msg[200];

    printf("options: %s, %zu options, %zu positional; seed '%s', last define '%s', quiet %d, first positional '%s'\n",
           tk_strerror(s), res.nhits, res.npositional, tk_opts_value(&res, OPT_SEED), tk_opts_value(&res, OPT_DEFINE),
           tk_opts_count(&res, OPT_QUIET), res.positional[0]);
    s = tk_opts_parse(options, TK_ARRAY_LEN(options), 2, bad, &res);
    printf("options: '--nope': %s\n", tk_error_format(&res.err, msg, sizeof msg));
}

int main(int argc, char **argv)
{
    tk_opt_result res;
    config cfg;
    tk_strbuf out, summary;
    tk_json json;
    size_t i, ran = 0;
    int quiet, as_json;
    char msg[200];

    if (tk_opts_parse(options, TK_ARRAY_LEN(options), argc, argv, &res) != TK_OK) {
        fprintf(stderr, "toolkit: %s\n", tk_error_format(&res.err, msg, sizeof msg));
        return 2;
    }
    if (tk_opts_count(&res, OPT_HELP)) {
        tk_strbuf help;

        tk_sb_init(&help);
        tk_opts_help(&help, "toolkit", options, TK_ARRAY_LEN(options));
        fputs(tk_sb_cstr(&help), stdout);
        tk_sb_free(&help);
        return 0;
    }
    if (tk_opts_count(&res, OPT_LIST)) {
        for (i = 0; i < TK_ARRAY_LEN(sections); i++)
            printf("%-12s %s\n", sections[i].name, sections[i].help);
        return 0;
    }
    quiet = tk_opts_count(&res, OPT_QUIET) > 0;
    as_json = tk_opts_count(&res, OPT_JSON) > 0;
    build_config(&cfg, &res);
    if (!quiet) {
        printf("%s %s, seed %llu\n", tk_ini_get_default(&cfg.ini, "run", "banner", "toolkit"), TOOLKIT_VERSION_STRING,
               (unsigned long long)cfg.seed);
        self_test_options();
    }

    tk_sb_init(&out);
    tk_sb_init(&summary);
    tk_json_init(&json, &summary, as_json ? 2 : 0);
    tk_json_begin_array(&json);
    for (i = 0; i < TK_ARRAY_LEN(sections); i++) {
        const section *s = &sections[i];
        size_t lines;

        if (!selected(s, &res))
            continue;
        tk_sb_reset(&out);
        s->run(&out, &cfg);
        lines = tk_str_count(tk_sb_cstr(&out), "\n");
        if (!quiet)
            printf("== %s ==\n%s", s->name, tk_sb_cstr(&out));
        tk_json_begin_object(&json);
        tk_json_key(&json, "section");
        tk_json_string(&json, s->name);
        tk_json_key(&json, "lines");
        tk_json_int(&json, (long)lines);
        tk_json_key(&json, "crc32");
        {
            char hex[16];

            snprintf(hex, sizeof hex, "%08x", (unsigned)tk_crc32(0, out.data, out.len));
            tk_json_string(&json, hex);
        }
        tk_json_end_object(&json);
        ran++;
    }
    tk_json_end_array(&json);
    if (tk_json_finish(&json) != TK_OK)
        tk_fatal("summary: %s", tk_strerror(json.status));
    if (as_json)
        printf("%s\n", tk_sb_cstr(&summary));
    else
        printf("== summary ==\n%zu sections: %s\n", ran, tk_sb_cstr(&summary));
    tk_sb_free(&out);
    tk_sb_free(&summary);
    tk_ini_free(&cfg.ini);
    printf("live allocations at exit: %ld\n", tk_live_allocations());
    return tk_live_allocations() == 0 ? 0 : 1;
}
