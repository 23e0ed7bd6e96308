/*
 * cpc_enable(3CPC), EXAMPLES, Example 1: "Use cpc_enable and cpc_disable
 * to minimize code needed by application." The page prints the calls
 * around a section; main() here is the program they sit in. Meant to run
 * under cputrack with nouser in the spec; run alone, as here, both calls
 * fail (EINVAL: no context bound) and the program does its work anyway,
 * which is what the page promises. error() and computation(): reader.h.
 */
#include <stdio.h>
#include <libcpc.h>

int
main(int argc, char *argv[])
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);

	/* ... application code ... */

	if (cpc != NULL)
		(void) cpc_enable(cpc);

	/* ==> Computation to be measured goes here <== */
	computation();

	if (cpc != NULL)
		(void) cpc_disable(cpc);

	/* ... other application code */

	(void) printf("done\n");
	return (0);
}
