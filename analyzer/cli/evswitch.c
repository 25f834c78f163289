/* --switch-on, --switch-off; see evswitch.h. */
#include "analyzer/cli/evswitch.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "readers/decode/evsel_name.h"

static const struct evsel *find_event(struct perf_session *session, const char *which,
				      const char *name)
{
	for (size_t i = 0; i < session->nr_evsels; i++) {
		const char *ev = evsel__name(&session->evsels[i]);

		if (ev && !strcmp(ev, name))
			return &session->evsels[i];
	}
	fprintf(stderr, "ERROR: switch-%s event not found (%s)\n"
		"HINT:  use 'perf evlist' to see the available event names\n", which, name);
	return NULL;
}

int evswitch__init(struct evswitch *sw, struct perf_session *session, const char *on,
		   const char *off)
{
	if ((on && !(sw->on = find_event(session, "on", on))) ||
	    (off && !(sw->off = find_event(session, "off", off))))
		return -ENOENT;
	sw->discarding = sw->on != NULL;
	return 0;
}

bool evswitch__discard(struct evswitch *sw, const struct evsel *evsel)
{
	if (sw->on && sw->discarding) {
		if (evsel != sw->on)
			return true;
		sw->discarding = false;
		return !sw->show_on_off;
	}
	if (sw->off && !sw->discarding && evsel == sw->off) {
		sw->discarding = true;
		return !sw->show_on_off;
	}
	return false;
}
