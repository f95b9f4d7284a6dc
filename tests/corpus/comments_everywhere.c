/* comments_everywhere.c: block and line comments in every position: inside loop headers
 * between the clauses, between `for` and `(`, inside expressions, after braces, comment-only
 * loop bodies next to statements, // comments with trailing backslash-free text, comments
 * that contain code-like text (for (;;) { } "strings" and 'c'), string literals that contain
 * comment markers, line continuations inside a macro, and the text after #endif. */
#include <stdio.h> /* stdio for printf */
#include <string.h> // strlen

/* A global array. for (int i = 0; i < 10; i++) { not code } */
static int data[/* size */ 20];

// a line comment before a function: int fake(void) { return 0; }
static int /* return type comment */ sum_data(int n /* count */)
{
    int s = 0; // accumulator
    for /* between for and paren */ (int i = 0 /* init */; i < n /* cond */; i++ /* step */) {
        /* a comment as the first statement */
        s += data[i] /* element */ * 2; // doubled
        // a trailing comment as the last statement
    }
    return s; /* done */
}

#define TRICKY "/* not a comment */ // nor this"
#define CONT(x) ((x) + \
                 1) /* continued */

int main(void) /* main's comment */
{
    for (int i = 0; i < 20; i++) // fill
        data[i] = i * 3 - 7; /* the body */
    printf("sum=%d\n", sum_data(20));

    const char *s1 = "// in a string";
    const char *s2 = "/* also in a string */";
    char c1 = '/', c2 = '*';
    printf("%s|%s|%c%c|%s|%zu\n", s1, s2, c1, c2, TRICKY, strlen(TRICKY));

    int acc = 0;
    for (int i = 0; /* no init comment */ i < 10; /**/ i += /* step two */ 2)
        /* the body follows the comment */
        acc += CONT(i) /* plus */ + /* one more */ 1;
    int j = 0;
    while /* before cond */ (j < 5) /* after cond */ {
        acc += j; /* inc */
        j++;
    } /* end while */
    do /* do comment */ {
        acc *= 2;
    } /* before while */ while (acc < 1000); // end do
    printf("acc=%d j=%d\n", acc, j);

    /*
     * A multi-line comment inside a function, with code inside:
     * for (int k = 0; k < n; k++) { a[k] = 0; }
     */
    int nest = 0;
    for (int a = 0; a < 4; a++) /* outer */
        for (int b = 0; /* inner */ b < a; b++)
            nest += a * 10 + b; // innermost
    printf("nest=%d\n", nest);
    return 0;
}
/* trailing comment at end of file */
// and a final line comment
