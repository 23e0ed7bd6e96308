/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mapsnap.h - the mappings of processes that already ran when a recording
 * started (record -p, -a), saved beside the log as FILE.maps in the log's own
 * record format (PROC_CREATE and MAP_IN records), so that report can name
 * their code after they are gone even where the log has no map records.
 */
#ifndef CPCSTAT_MAPSNAP_H
#define CPCSTAT_MAPSNAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The sidecar's name for LOG (malloc'd). */
char *mapsnap_path(const char *log);
/* Open the sidecar for writing (its first record included); NULL on error. */
FILE *mapsnap_create(const char *path);
/* Append the name and executable file mappings of PID (0: every process). */
void mapsnap_add(FILE *fp, pid_t pid);
/*
 * Append PID's mappings if its executable mappings changed since *HASH (0
 * at first) and it no longer runs our own program (a child between fork
 * and exec); returns true if it appended.
 */
bool mapsnap_update(FILE *fp, pid_t pid, uint64_t *hash);
/* The closing record; returns fclose's result. */
int mapsnap_close(FILE *fp);

#endif /* CPCSTAT_MAPSNAP_H */
