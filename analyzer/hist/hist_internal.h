/*
 * What the hist_*.c files share: the entries' small helpers, the cumulation's and the
 * replay's state, and the functions one file calls in another. Private to analyzer/hist/
 * (make check-layers): the API is hist.h. Hot helpers stay static inline here.
 */
#ifndef ANALYZER_HIST_HIST_INTERNAL_H
#define ANALYZER_HIST_HIST_INTERNAL_H

#include "analyzer/hist/hist.h"
#include "analyzer/hist/hist_keys_internal.h"

/* hist.c */
const struct object_map *object_map(const struct hists *hists, u32 e);
void hists__collapse(struct hists *hists);
void release_free(void);

/* hist_order.c */
size_t output_order(struct hists *hists, const struct hists_print_opts *opts, u32 *order);

#endif
