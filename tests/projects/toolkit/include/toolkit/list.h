/* list.h - an intrusive doubly linked list with a sentinel head. */
#ifndef TOOLKIT_LIST_H
#define TOOLKIT_LIST_H

#include <stddef.h>

typedef struct tk_list_node {
    struct tk_list_node *prev;
    struct tk_list_node *next;
} tk_list_node;

typedef struct {
    tk_list_node head;
    size_t len;
} tk_list;

#define TK_CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define TK_LIST_FOREACH(node, list) \
    for ((node) = (list)->head.next; (node) != &(list)->head; (node) = (node)->next)

typedef int (*tk_list_cmp)(const tk_list_node *a, const tk_list_node *b);

void tk_list_init(tk_list *l);
int tk_list_empty(const tk_list *l);
void tk_list_push_back(tk_list *l, tk_list_node *n);
void tk_list_remove(tk_list *l, tk_list_node *n);
tk_list_node *tk_list_pop_front(tk_list *l);
/* Stable merge sort of the whole list. */
void tk_list_sort(tk_list *l, tk_list_cmp cmp);

#endif
