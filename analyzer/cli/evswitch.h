/*
 * evswitch: --switch-on and --switch-off of perf report and script (perf's util/evswitch.c):
 * the samples from one event's sample on, until another event's. Stateful: one caller,
 * samples in delivery order.
 */
#ifndef ANALYZER_EVSWITCH_H
#define ANALYZER_EVSWITCH_H

#include <stdbool.h>

#include "readers/session.h"

struct evswitch {
	const struct evsel *on, *off;
	bool discarding;	/* not now */
	bool show_on_off;	/* --show-on-off-events: the two events' own samples kept */
};

/*
 * The events named ON and OFF (either NULL), as perf's evswitch__init finds them: 0, or
 * -ENOENT after perf's error for the one not in the session.
 */
int evswitch__init(struct evswitch *sw, struct perf_session *session, const char *on,
		   const char *off);
/* Whether the sample of evsel, the next in delivery order, is dropped (perf's evswitch__discard) */
bool evswitch__discard(struct evswitch *sw, const struct evsel *evsel);

#endif
