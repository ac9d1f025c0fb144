/* `berth trace`: tools for trace files (stats, convert, slice, formats); the command table
 * in main.c runs cmd_trace with argv[0] = "trace". */
#ifndef BERTH_CLI_CMD_TRACE_H
#define BERTH_CLI_CMD_TRACE_H

int cmd_trace(int argc, char **argv);

#endif
