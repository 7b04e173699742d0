#include "server/access_log.h"

#include <stdio.h>
#include <stdlib.h>

#include "server/jsonout.h"
#include "server/log.h"

void srv_access_log(enum srv_verb verb, const struct verb_reply *r, double seconds,
                    size_t body_bytes)
{
    char num[96];
    struct jsonout o;

    /* A 200 can carry an Error too: a bind that failed. */
    enum cfg_log_level level =
        r->status == 200 && r->error[0] == '\0' ? CFG_LOG_INFO : CFG_LOG_WARN;
    if (!log_enabled(level))
        return;
    srv_out_init(&o, 512);
    srv_out_str(&o, "\"verb\":\"");
    srv_out_str(&o, srv_verb_name(verb));
    srv_out_str(&o, "\",\"pod\":");
    srv_out_quoted(&o, r->pod);
    if (verb != SRV_VERB_BIND) {
        srv_out_str(&o, ",\"nodesIn\":");
        srv_out_int(&o, (int64_t)r->nodes);
        srv_out_str(&o, ",\"nodesPassed\":");
        srv_out_int(&o, (int64_t)r->passed);
    }
    srv_out_str(&o, verb == SRV_VERB_BIND ? ",\"node\":" : ",\"bestNode\":");
    srv_out_quoted(&o, r->best);
    if (verb == SRV_VERB_FILTER || verb == SRV_VERB_PRIORITIZE) {
        srv_out_str(&o, ",\"bestScore\":");
        srv_out_int(&o, r->best_score);
        srv_out_str(&o, ",\"decision\":");
        srv_out_int(&o, (int64_t)r->decision);
    }
    if (verb != SRV_VERB_BIND && r->status == 200) {
        srv_out_str(&o, ",\"answer\":\"");
        srv_out_str(&o, srv_answer_name(r->answer));
        srv_out_str(&o, "\"");
    }
    snprintf(num, sizeof(num), ",\"status\":%u,\"durationSeconds\":%.6f,\"bodyBytes\":%zu",
             r->status, seconds, body_bytes);
    srv_out_str(&o, num);
    if (level == CFG_LOG_WARN) {
        srv_out_str(&o, ",\"error\":");
        srv_out_quoted(&o, r->error);
    }
    size_t len;
    char *members = srv_out_take(&o, &len);
    if (members != NULL)
        log_json(level, "request", members);
    free(members);
}
