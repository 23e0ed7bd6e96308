/*
 * cpc_seterrhndlr(3CPC), EXAMPLES, Example 1: "Debugging example." The
 * handler and its installation as the page prints them; main() is the
 * program around them: it installs the handler, makes one request with a
 * bad event (not a bind error: printed only when `debugging` is set, from
 * the argument "-d") and binds a set whose request has invalid flags (a
 * bind error: printed). error(): reader.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <libcpc.h>

int debugging;
void
myapp_errfn(const char *fn, int subcode, const char *fmt, va_list ap)
{
	if (strncmp(fn, "cpc_bind", 8) != 0 && !debugging)
		return;
	(void) fprintf(stderr, "myapp: cpc_%s(): ", fn);
	(void) vfprintf(stderr, fmt, ap);
}

int
main(int argc, char *argv[])
{
	cpc_t *cpc;
	cpc_set_t *set;

	debugging = argc > 1 && strcmp(argv[1], "-d") == 0;
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		error("perf counters unavailable: %s", strerror(errno));
	(void) cpc_seterrhndlr(cpc, myapp_errfn);

	set = cpc_set_create(cpc);
	(void) cpc_set_add_request(cpc, set, "no-such-event", 0,
	    CPC_COUNT_USER, 0, NULL);
	if (cpc_set_add_request(cpc, set, "task-clock", 0, 0x10, 0,
	    NULL) != 0)
		error("task-clock request: %s", strerror(errno));
	if (cpc_bind_curlwp(cpc, set, 0) == 0)
		error("a request with invalid flags was bound");
	cpc_close(cpc);
	return (0);
}
