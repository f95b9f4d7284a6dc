/* list.c - doubly linked list with a merge sort over the next pointers. */
#include "toolkit/list.h"

void tk_list_init(tk_list *l)
{
    l->head.prev = l->head.next = &l->head;
    l->len = 0;
}

int tk_list_empty(const tk_list *l)
{
    return l->head.next == &l->head;
}

static void link_between(tk_list_node *n, tk_list_node *prev, tk_list_node *next)
{
    n->prev = prev;
    n->next = next;
    prev->next = n;
    next->prev = n;
}

void tk_list_push_back(tk_list *l, tk_list_node *n)
{
    link_between(n, l->head.prev, &l->head);
    l->len++;
}

void tk_list_remove(tk_list *l, tk_list_node *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->prev = n->next = NULL;
    l->len--;
}

tk_list_node *tk_list_pop_front(tk_list *l)
{
    tk_list_node *n;

    if (tk_list_empty(l))
        return NULL;
    n = l->head.next;
    tk_list_remove(l, n);
    return n;
}

/* Merges two NULL-terminated singly linked runs; ties take from a first (stability). */
static tk_list_node *merge(tk_list_node *a, tk_list_node *b, tk_list_cmp cmp)
{
    tk_list_node head, *tail = &head;

    while (a && b) {
        if (cmp(b, a) < 0) {
            tail->next = b;
            b = b->next;
        } else {
            tail->next = a;
            a = a->next;
        }
        tail = tail->next;
    }
    tail->next = a ? a : b;
    return head.next;
}

static tk_list_node *merge_sort(tk_list_node *first, tk_list_cmp cmp)
{
    tk_list_node *slow, *fast, *second;

    if (!first || !first->next)
        return first;
    slow = first;
    fast = first->next;
    while (fast && fast->next) {
        slow = slow->next;
        fast = fast->next->next;
    }
    second = slow->next;
    slow->next = NULL;
    return merge(merge_sort(first, cmp), merge_sort(second, cmp), cmp);
}

void tk_list_sort(tk_list *l, tk_list_cmp cmp)
{
    tk_list_node *first, *n, *prev;

    if (l->len < 2)
        return;
    l->head.prev->next = NULL;
    first = merge_sort(l->head.next, cmp);
    /* Rebuild the prev links and close the ring again. */
    prev = &l->head;
    for (n = first; n; n = n->next) {
        n->prev = prev;
        prev->next = n;
        prev = n;
    }
    prev->next = &l->head;
    l->head.prev = prev;
}

