#ifndef LIB_WORKQUEUE_H
#define LIB_WORKQUEUE_H
#include <stddef.h>
struct work { void (*func)(struct work *); struct work *next; };
struct workqueue;
struct workqueue *workqueue__new(int nr_threads);
void workqueue__destroy(struct workqueue *wq);
void workqueue__queue(struct workqueue *wq, struct work *work);
void workqueue__flush(struct workqueue *wq);
int workqueue__parallel_for(struct workqueue *wq, size_t start, size_t end, size_t chunk, void (*fn)(size_t i, void *arg), void *arg);
#endif
