#include "lib/workqueue.h"
#include <pthread.h>
#include <stdlib.h>
struct workqueue { pthread_mutex_t l; pthread_cond_t c, idle; struct work *head, *tail; int busy, stop, n; pthread_t t[64]; };
static void *worker(void *a) { struct workqueue *wq = a; pthread_mutex_lock(&wq->l);
 for (;;) { while (!wq->head && !wq->stop) pthread_cond_wait(&wq->c, &wq->l); if (!wq->head) break;
  struct work *w = wq->head; wq->head = w->next; if (!wq->head) wq->tail = NULL; wq->busy++; pthread_mutex_unlock(&wq->l);
  w->func(w); pthread_mutex_lock(&wq->l); wq->busy--; pthread_cond_broadcast(&wq->idle); }
 pthread_mutex_unlock(&wq->l); return NULL; }
struct workqueue *workqueue__new(int n) { struct workqueue *wq = calloc(1, sizeof(*wq)); pthread_mutex_init(&wq->l, 0); pthread_cond_init(&wq->c, 0); pthread_cond_init(&wq->idle, 0); wq->n = n; for (int i = 0; i < n; i++) pthread_create(&wq->t[i], 0, worker, wq); return wq; }
void workqueue__queue(struct workqueue *wq, struct work *w) { pthread_mutex_lock(&wq->l); w->next = NULL; if (wq->tail) wq->tail->next = w; else wq->head = w; wq->tail = w; pthread_cond_signal(&wq->c); pthread_mutex_unlock(&wq->l); }
void workqueue__flush(struct workqueue *wq) { pthread_mutex_lock(&wq->l); while (wq->head || wq->busy) pthread_cond_wait(&wq->idle, &wq->l); pthread_mutex_unlock(&wq->l); }
void workqueue__destroy(struct workqueue *wq) { workqueue__flush(wq); pthread_mutex_lock(&wq->l); wq->stop = 1; pthread_cond_broadcast(&wq->c); pthread_mutex_unlock(&wq->l); for (int i = 0; i < wq->n; i++) pthread_join(wq->t[i], 0); free(wq); }
struct pf { struct work w; void (*fn)(size_t, void *); void *arg; size_t i; };
static void pf_run(struct work *w) { struct pf *p = (struct pf *)w; p->fn(p->i, p->arg); }
int workqueue__parallel_for(struct workqueue *wq, size_t s, size_t e, size_t chunk, void (*fn)(size_t, void *), void *arg) { struct pf *p = calloc(e - s + 1, sizeof(*p)); for (size_t i = s; i < e; i++) { p[i-s] = (struct pf){ { pf_run, 0 }, fn, arg, i }; workqueue__queue(wq, &p[i-s].w); } workqueue__flush(wq); free(p); return 0; }
