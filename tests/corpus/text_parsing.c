/* text_parsing.c: character-level loops over text: a hand-written tokenizer (state machine in
 * a while loop with switch), strtol/strtod with end pointers, a bounded manual string copy, snprintf into a buffer inside a
 * loop (offsets accumulate), sscanf, word frequency counting with a small hash table of
 * structs with char arrays, and line splitting on '\n'. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

static const char *text =
    "alpha 12 beta -7 gamma 3.5e1\n"
    "alpha beta 0x1f delta  42\n"
    "gamma gamma -0.25 alpha end\n";

#define NB 16
struct entry { char word[16]; int count; };
static struct entry table[NB];

static unsigned hash(const char *s)
{
    unsigned h = 5381;
    while (*s)
        h = h * 33u ^ (unsigned char)*s++;
    return h;
}

static void add_word(const char *w)
{
    unsigned h = hash(w) % NB;
    for (unsigned probe = 0; probe < NB; probe++) {
        struct entry *e = &table[(h + probe) % NB];
        if (e->count == 0) {
            size_t k;
            for (k = 0; w[k] && k < sizeof e->word - 1; k++)
                e->word[k] = w[k];
            e->word[k] = '\0';
            e->count = 1;
            return;
        }
        if (strcmp(e->word, w) == 0) {
            e->count++;
            return;
        }
    }
}

int main(void)
{
    enum { SPACE, WORD, NUMBER } st = SPACE;
    char tok[32];
    int tl = 0, words = 0, numbers = 0;
    double numsum = 0;
    for (const char *p = text;; p++) {
        char c = *p;
        switch (st) {
        case SPACE:
            if (isalpha((unsigned char)c)) {
                st = WORD;
                tl = 0;
                tok[tl++] = c;
            } else if (isdigit((unsigned char)c) || c == '-') {
                char *end;
                double v = strtod(p, &end);
                long iv = strtol(p, NULL, 0);
                numsum += v + (double)iv;
                numbers++;
                p = end - 1;
            }
            break;
        case WORD:
            if (isalnum((unsigned char)c)) {
                if (tl < 31)
                    tok[tl++] = c;
            } else {
                tok[tl] = 0;
                add_word(tok);
                words++;
                st = SPACE;
            }
            break;
        case NUMBER:
            break;
        }
        if (c == 0)
            break;
    }
    printf("words=%d numbers=%d numsum=%.17g\n", words, numbers, numsum);
    for (int i = 0; i < NB; i++)
        if (table[i].count)
            printf("  %s:%d\n", table[i].word, table[i].count);

    char buf[256];
    int off = 0;
    for (int i = 0; i < 12 && off < (int)sizeof buf; i++)
        off += snprintf(buf + off, sizeof buf - (size_t)off, "%d%s", i * i, i < 11 ? "," : "");
    printf("buf=%s off=%d\n", buf, off);

    int a, b;
    char name[16];
    if (sscanf("point 17 -4", "%15s %d %d", name, &a, &b) == 3)
        printf("sscanf: %s %d %d\n", name, a, b);

    int lines = 0, maxlen = 0, cur = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            lines++;
            if (cur > maxlen)
                maxlen = cur;
            cur = 0;
        } else
            cur++;
    }
    printf("lines=%d maxlen=%d\n", lines, maxlen);
    return 0;
}
