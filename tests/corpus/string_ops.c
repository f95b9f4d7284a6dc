/* string_ops.c: <string.h> memcpy/memmove/memset/strlen/strcmp/strncmp/strcpy/strcat/strchr,
 * char arrays and string literals, loops over chars with '\0' termination, <ctype.h>. */
#include <stdio.h>
#include <string.h>
#include <ctype.h>

#define BUF 128

static const char *words[] = {"delta", "alpha", "charlie", "bravo", "echo", "alpha2", "Alpha"};
#define NWORDS ((int)(sizeof words / sizeof words[0]))

static void reverse(char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
        char t = s[i];
        s[i] = s[j];
        s[j] = t;
    }
}

static int count_vowels(const char *s)
{
    int c = 0;
    while (*s) {
        switch (tolower((unsigned char)*s++)) {
        case 'a': case 'e': case 'i': case 'o': case 'u':
            c++;
            break;
        default:
            break;
        }
    }
    return c;
}

int main(void)
{
    char buf[BUF];
    char tmp[BUF];
    memset(buf, 0, sizeof buf);
    memset(tmp, 'x', sizeof tmp - 1);
    tmp[BUF - 1] = '\0';
    printf("strlen(tmp)=%zu\n", strlen(tmp));

    /* selection sort of pointers with strcmp */
    const char *w[NWORDS];
    memcpy(w, words, sizeof w);
    for (int i = 0; i < NWORDS - 1; i++) {
        int m = i;
        for (int j = i + 1; j < NWORDS; j++)
            if (strcmp(w[j], w[m]) < 0)
                m = j;
        const char *t = w[i];
        w[i] = w[m];
        w[m] = t;
    }
    for (int i = 0; i < NWORDS; i++)
        printf("%s%c", w[i], i + 1 < NWORDS ? ' ' : '\n');
    printf("strncmp=%d\n", strncmp("alpha", "alpha2", 5) == 0);

    strcpy(buf, "Hello");
    strcat(buf, ", ");
    strcat(buf, "World!");
    printf("%s len=%zu vowels=%d\n", buf, strlen(buf), count_vowels(buf));
    reverse(buf);
    printf("reversed=%s\n", buf);

    /* upper-case in place, count character classes */
    int alpha = 0, punct = 0, space = 0;
    for (char *p = buf; *p != '\0'; ++p) {
        if (isalpha((unsigned char)*p)) {
            alpha++;
            *p = (char)toupper((unsigned char)*p);
        } else if (ispunct((unsigned char)*p))
            punct++;
        else if (isspace((unsigned char)*p))
            space++;
    }
    printf("upper=%s alpha=%d punct=%d space=%d\n", buf, alpha, punct, space);

    /* memmove overlapping, byte checksum */
    unsigned char bytes[64];
    for (int i = 0; i < 64; i++)
        bytes[i] = (unsigned char)(i * 7 + 3);
    memmove(bytes + 5, bytes, 40);
    unsigned sum = 0;
    for (int i = 0; i < 64; i++)
        sum = sum * 33u + bytes[i];
    printf("memmove checksum=%u\n", sum);

    const char *hay = "the quick brown fox jumps over the lazy dog";
    int spaces = 0;
    for (const char *p = strchr(hay, ' '); p; p = strchr(p + 1, ' '))
        spaces++;
    printf("spaces=%d strstr=%ld\n", spaces, (long)(strstr(hay, "fox") - hay));

    /* build a string char by char, with digits */
    char out[BUF];
    int k = 0;
    for (int i = 0; i < 26 && k < BUF - 1; i += 3) {
        out[k++] = (char)('a' + i);
        out[k++] = (char)('0' + i % 10);
    }
    out[k] = 0;
    printf("out=%s\n", out);
    return 0;
}
