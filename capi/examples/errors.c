/* rpsl from C, when things go wrong: every failure is a status and a message, never a crash.
 * Needs no GPU.
 *
 *   cc -I capi/include capi/examples/errors.c -L target/debug -lrpsl_capi && ./a.out */
#include <stdint.h>
#include <stdio.h>

#include "rpsl.h"

/* Prints a call's status and the last error message. */
static void report(const char *what, RpslStatus status) {
    printf("%s: %s", what, rpsl_status_name(status));
    if (status != RPSL_STATUS_OK)
        printf(": %s", rpsl_last_error());
    printf("\n");
}

int main(void) {
    RpslProgram *program = NULL;

    /* A script with an error: its diagnostics, rendered. */
    report("bad script",
           rpsl_program_from_source("bad.rpsl", "export void main() { uint a = b; }\n", NULL,
                                    &program));
    printf("program after failure: %s\n", program == NULL ? "null" : "set");

    /* Null pointers and bad UTF-8. */
    report("null text", rpsl_program_from_source("x.rpsl", NULL, NULL, &program));
    report("null out", rpsl_program_from_source("x.rpsl", "", NULL, NULL));
    report("bad utf-8", rpsl_program_from_source("x.rpsl", "export void main() {}\xff", NULL,
                                                 &program));

    const char *text = "export void main(uint count, float2 scale) {\n"
                       "    if (count > 5) abort(count);\n"
                       "}\n";
    report("good script", rpsl_program_from_source("good.rpsl", text, NULL, &program));
    RpslSession *session = NULL;
    report("unknown entry", rpsl_session_create(program, "nope", NULL, &session));
    report("session", rpsl_session_create(program, NULL, NULL, &session));

    /* Handles of the wrong type, destroyed or never made. */
    size_t count = 0;
    report("session as program",
           rpsl_program_entry_count((const RpslProgram *)session, &count));
    int local = 0;
    report("foreign pointer", rpsl_program_entry_count((const RpslProgram *)&local, &count));

    /* Arguments that do not fit. */
    const float one = 1.0f;
    report("float for uint", rpsl_session_set_arg_floats(session, "count", &one, 1));
    const float pair[3] = {1.0f, 2.0f, 3.0f};
    report("three for float2", rpsl_session_set_arg_floats(session, "scale", pair, 3));
    report("unknown parameter", rpsl_session_set_arg(session, "size", "3"));
    report("bad text", rpsl_session_set_arg(session, "count", "three"));

    /* Results asked for before there is a frame, and a frame that faults. */
    RpslFrameInfo info;
    report("no frame yet", rpsl_session_frame_info(session, &info));
    const uint32_t seven = 7;
    report("count 7", rpsl_session_set_arg_uints(session, "count", &seven, 1));
    report("faulting frame", rpsl_session_run_frame(session, &info));
    report("after the fault", rpsl_session_frame_info(session, &info));
    const uint32_t two = 2;
    report("count 2", rpsl_session_set_arg_uints(session, "count", &two, 1));
    report("next frame", rpsl_session_run_frame(session, &info));
    printf("frame index %llu\n", (unsigned long long)info.frame_index);

    /* A buffer that is too small. */
    char small[4];
    size_t needed = 0;
    RpslStatus status = rpsl_session_frame_json(session, small, sizeof small, &needed);
    printf("small buffer: %s, needs more: %s\n", rpsl_status_name(status),
           needed > sizeof small ? "yes" : "no");

    /* Destroyed handles. */
    report("destroy program", rpsl_program_destroy(program));
    report("destroyed program", rpsl_program_entry_count(program, &count));
    report("destroy again", rpsl_program_destroy(program));
    report("session outlives it", rpsl_session_run_frame(session, &info));
    report("destroy session", rpsl_session_destroy(session));
    report("destroy null", rpsl_session_destroy(NULL));
    printf("unknown status: %s\n", rpsl_status_name(99));
    return 0;
}
