/*
 * Request bodies of the shapes kube-scheduler sends, made by the tests at
 * any size: NodeLists of kubelet-like Node objects (about 6 KB each),
 * NodeNames, ExtenderPreemptionArgs by UID or with full pods. Each returns
 * a malloc'd NUL-terminated body and its length (the caller frees it).
 */
#ifndef TESTS_SUPPORT_BODIES_H
#define TESTS_SUPPORT_BODIES_H

#include <stdbool.h>
#include <stddef.h>

/* The pod being placed in every body: 1350m CPU, about 1.3 GiB. */
extern const char bodies_pod[];

/* ExtenderArgs with a NodeList of @n nodes (every third one too full for
 * the pod), padded with white space to @pad_to bytes when that is more. */
char *bodies_nodelist(size_t n, size_t pad_to, size_t *len);

/* The most nodes bodies_nodelist() fits into @bytes. */
size_t bodies_nodelist_fits(size_t bytes);

/* ExtenderArgs with @n NodeNames of @name_len bytes each (at least 9). */
char *bodies_names(size_t n, size_t name_len, size_t *len);

/* ExtenderPreemptionArgs: @n nodes with @k victims each, by UID (@meta)
 * or as full pods. */
char *bodies_preempt(size_t n, size_t k, bool meta, size_t *len);

#endif
