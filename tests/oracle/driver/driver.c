/*
 * The C side of the oracle (tests/oracle/README.md): reads the cases that
 * tests/oracle/gen.go writes, one per line on standard input, answers each
 * with the project's scoring/ functions on standard output, one line each,
 * in the words oracle.go gives Kubernetes' answers. A line "F" flushes the
 * answers. A case this side cannot read is answered "bad".
 *
 * The pods are built as server/codec/pod.c builds them (each quantity
 * through score_quantity_parse, cpu in millicores and memory in bytes), so
 * that what is compared is scoring/, not a second decoder.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement/constraints.h"
#include "scoring/podreq.h"
#include "scoring/quantity.h"
#include "scoring/strategy.h"

#define MAX_CONTAINERS 64
#define MAX_ITEMS      64
#define MAX_PODS       16

/* Splits *@s at the next @sep, like strsep(3) with a string separator. */
static char *cut(char **s, const char *sep)
{
    char *start = *s, *at;
    if (start == NULL)
        return NULL;
    at = strstr(start, sep);
    if (at == NULL) {
        *s = NULL;
    } else {
        *at = '\0';
        *s = at + strlen(sep);
    }
    return start;
}

static bool quantity(const char *text, enum score_unit unit, int64_t *out)
{
    const char *why;
    return score_quantity_parse(text, strlen(text), unit, out, &why) == 0 && *out >= 0;
}

/* A <list> of gen.go into @req/@has; @pod_level_key says it names cpu,
 * memory or hugepages (IsPodLevelRequestsSet). */
static bool list(char *s, int64_t req[SCORE_NRES], bool has[SCORE_NRES], bool *pod_level_key)
{
    memset(req, 0, sizeof(int64_t) * SCORE_NRES);
    memset(has, 0, sizeof(bool) * SCORE_NRES);
    if (pod_level_key != NULL)
        *pod_level_key = false;
    if (strcmp(s, "-") == 0)
        return true;
    for (char *item; (item = cut(&s, ",")) != NULL;) {
        char *key = cut(&item, "=");
        if (item == NULL)
            return false;
        int r = strcmp(key, "cpu") == 0      ? SCORE_CPU
                : strcmp(key, "memory") == 0 ? SCORE_MEMORY
                                             : -1;
        int64_t v;
        if (!quantity(item, r == SCORE_CPU ? SCORE_UNIT_MILLI : SCORE_UNIT_BASE, &v))
            return false;
        if (pod_level_key != NULL && (r >= 0 || strcmp(key, "h") == 0))
            *pod_level_key = true;
        if (r >= 0) {
            req[r] = v;
            has[r] = true;
        }
    }
    return true;
}

static bool status_list(char *s, struct score_list *l)
{
    l->set = true;
    return list(s, l->req, l->has, NULL);
}

struct pod_buf {
    struct score_container containers[MAX_CONTAINERS], init[MAX_CONTAINERS];
    struct score_pod pod;
};

/* A <pod> of gen.go, its tokens separated by spaces in @s. */
static bool parse_pod(char *s, struct pod_buf *b)
{
    struct score_pod *p = &b->pod;
    struct score_container *last = NULL;
    bool key, resize_seen = false;

    memset(b, 0, sizeof(*b));
    p->containers = b->containers;
    p->init_containers = b->init;
    for (char *t; (t = cut(&s, " ")) != NULL;) {
        if (*t == '\0' || strcmp(t, "-") == 0)
            continue;
        char *rest = strchr(t, ':');
        if (rest != NULL)
            *rest++ = '\0';
        if (strcmp(t, "c") == 0 || strcmp(t, "i") == 0 || strcmp(t, "s") == 0) {
            bool regular = t[0] == 'c';
            size_t *n = regular ? &p->n_containers : &p->n_init_containers;
            if (rest == NULL || *n == MAX_CONTAINERS)
                return false;
            last = regular ? &b->containers[*n] : &b->init[*n];
            (*n)++;
            if (!list(rest, last->req, last->has, NULL))
                return false;
            last->restartable = t[0] == 's';
        } else if (strcmp(t, "a") == 0 || strcmp(t, "r") == 0) {
            if (rest == NULL || last == NULL ||
                !status_list(rest, t[0] == 'a' ? &last->allocated : &last->actuated))
                return false;
        } else if (strcmp(t, "pl") == 0) {
            if (rest == NULL || !list(rest, p->pod_level.req, p->pod_level.has, &key))
                return false;
            p->pod_level_set = key;
        } else if (strcmp(t, "oh") == 0) {
            if (rest == NULL || !list(rest, p->overhead.req, p->overhead.has, NULL))
                return false;
        } else if (strcmp(t, "PA") == 0) {
            if (rest == NULL || !status_list(rest, &p->status_allocated))
                return false;
        } else if (strcmp(t, "PR") == 0) {
            if (rest == NULL || !status_list(rest, &p->status_actuated))
                return false;
            p->status_resources = true;
        } else if (strcmp(t, "PRn") == 0) {
            memset(&p->status_actuated, 0, sizeof(p->status_actuated));
            p->status_resources = true;
        } else if (strcmp(t, "inf") == 0 || strcmp(t, "def") == 0) {
            /* The first PodResizePending condition decides. */
            if (!resize_seen)
                p->resize_infeasible = t[0] == 'i';
            resize_seen = true;
        } else {
            return false;
        }
    }
    return true;
}

static void answer_quantity(char *unit, char *hex)
{
    char text[1024];
    size_t n = strlen(hex) / 2;
    if (n >= sizeof(text)) {
        puts("bad");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
            puts("bad");
            return;
        }
        text[i] = (char)v;
    }
    int64_t v;
    const char *why = "";
    int rc = score_quantity_parse(text, n, unit[0] == 'c' ? SCORE_UNIT_MILLI : SCORE_UNIT_BASE, &v,
                                  &why);
    /* An exponent outside int32 is a parse error to Kubernetes too. */
    if (rc == -EINVAL || (rc == -ERANGE && strstr(why, "exponent") != NULL))
        puts("err");
    else if (rc == -ERANGE)
        puts("range");
    else
        printf("ok %lld\n", (long long)v);
}

static void answer_pod(char *rest)
{
    static struct pod_buf b;
    struct score_pod_request r;
    if (!parse_pod(rest, &b) || score_pod_request(&b.pod, &r) != 0) {
        puts("bad");
        return;
    }
    printf("ok %lld %lld %lld %lld %lld %lld %lld %lld\n", (long long)r.fit[SCORE_CPU],
           (long long)r.fit[SCORE_MEMORY], (long long)r.real[SCORE_CPU],
           (long long)r.real[SCORE_MEMORY], (long long)r.non_zero[SCORE_CPU],
           (long long)r.non_zero[SCORE_MEMORY], (long long)r.non_zero_scored[SCORE_CPU],
           (long long)r.non_zero_scored[SCORE_MEMORY]);
}

/* The node holds the pods after the first: used is what NodeInfo sums
 * (Requested, NonZeroRequested), as kube/state.c sums them. */
static void answer_score(char *rest)
{
    static struct pod_buf b;
    struct score_params p = {.target_percent = 60, .threshold_percent = {100, 100}};
    struct score_node node;
    struct score_pod_request pod, on;
    struct score_explain ex;
    char *head = cut(&rest, " | ");
    const char *strategy = cut(&head, " ");
    char *wc = cut(&head, " "), *wm = cut(&head, " ");
    char *ac = cut(&head, " "), *am = cut(&head, " ");

    memset(&node, 0, sizeof(node));
    /* NodeResourcesFit's strategy names for ours. */
    if (strategy != NULL && strcmp(strategy, "least") == 0)
        strategy = "spread";
    else if (strategy != NULL && strcmp(strategy, "most") == 0)
        strategy = "pack";
    if (am == NULL || score_strategy_parse(strategy, &p.strategy) != 0 ||
        !quantity(ac, SCORE_UNIT_MILLI, &node.alloc[SCORE_CPU]) ||
        !quantity(am, SCORE_UNIT_BASE, &node.alloc[SCORE_MEMORY])) {
        puts("bad");
        return;
    }
    p.weight[SCORE_CPU] = atoi(wc);
    p.weight[SCORE_MEMORY] = atoi(wm);
    char *first = cut(&rest, " | ");
    if (first == NULL || !parse_pod(first, &b) || score_pod_request(&b.pod, &pod) != 0) {
        puts("bad");
        return;
    }
    for (char *s; (s = cut(&rest, " | ")) != NULL;) {
        if (!parse_pod(s, &b) || score_pod_request(&b.pod, &on) != 0) {
            puts("bad");
            return;
        }
        for (int r = 0; r < SCORE_NRES; r++) {
            node.used[r] += on.real[r];
            node.used_non_zero[r] += on.non_zero[r];
        }
    }
    score_node_value(&p, &node, &pod, &ex);
    printf("ok %d\n", ex.value);
}

static const char *str(const char *s)
{
    return strcmp(s, "~") == 0 ? "" : s;
}

/* Items of a ";" list into @out (at most MAX_ITEMS); "~" is none. */
static size_t items(char *s, char **out)
{
    size_t n = 0;
    if (strcmp(s, "~") == 0)
        return 0;
    for (char *it; n < MAX_ITEMS && (it = cut(&s, ";")) != NULL;)
        out[n++] = it;
    return n;
}

struct constraints_buf {
    struct place_label labels[MAX_ITEMS], selector[MAX_ITEMS];
    struct place_taint taints[MAX_ITEMS];
    struct place_toleration tolerations[MAX_ITEMS];
    struct place_selector_term terms[MAX_ITEMS];
    struct place_requirement exprs[MAX_ITEMS][MAX_ITEMS], fields[MAX_ITEMS][MAX_ITEMS];
    const char *values[MAX_ITEMS][2 * MAX_ITEMS][8];
};

static bool labels(char *s, struct place_label *out, size_t *n)
{
    char *it[MAX_ITEMS];
    *n = items(s, it);
    for (size_t i = 0; i < *n; i++) {
        out[i].key = cut(&it[i], "=");
        out[i].value = it[i];
        if (out[i].value == NULL)
            return false;
    }
    return true;
}

static bool term(char *s, struct constraints_buf *b, size_t t)
{
    struct place_selector_term *term = &b->terms[t];
    size_t k = 0;

    memset(term, 0, sizeof(*term));
    term->match_expressions = b->exprs[t];
    term->match_fields = b->fields[t];
    if (strcmp(s, "0") == 0)
        return true;
    for (char *req; (req = cut(&s, "&")) != NULL && k < 2 * MAX_ITEMS; k++) {
        bool expr = req[0] == 'e';
        /* Each kind has MAX_ITEMS slots of its own. */
        if ((expr ? term->n_match_expressions : term->n_match_fields) >= MAX_ITEMS)
            return false;
        struct place_requirement *r = expr ? &b->exprs[t][term->n_match_expressions++]
                                           : &b->fields[t][term->n_match_fields++];
        char *p = req + 1;
        char *key = cut(&p, "="), *op = cut(&p, "="), *count = cut(&p, "=");
        if (p == NULL || place_selector_op_parse(op, &r->op) != 0)
            return false;
        r->key = key;
        r->n_values = (size_t)atoi(count);
        if (r->n_values > 8)
            return false;
        for (size_t v = 0; v < r->n_values; v++)
            b->values[t][k][v] = cut(&p, ",");
        r->values = b->values[t][k];
    }
    return true;
}

static void answer_constraints(char *rest)
{
    static struct constraints_buf b;
    struct place_pod_constraints pod;
    struct place_node_facts node;
    struct place_judgement j;
    char *f[8], *it[MAX_ITEMS];

    memset(&pod, 0, sizeof(pod));
    memset(&node, 0, sizeof(node));
    for (int i = 0; i < 8; i++)
        if ((f[i] = cut(&rest, " ")) == NULL)
            goto bad;
    node.name = str(f[0]);
    node.unschedulable = strcmp(f[1], "1") == 0;
    if (!labels(f[2], b.labels, &node.n_labels))
        goto bad;
    node.labels = b.labels;
    node.n_taints = items(f[3], it);
    for (size_t i = 0; i < node.n_taints; i++) {
        b.taints[i].key = cut(&it[i], "=");
        b.taints[i].value = cut(&it[i], ":");
        if (it[i] == NULL || place_taint_effect_parse(it[i], false, &b.taints[i].effect) != 0)
            goto bad;
    }
    node.taints = b.taints;
    pod.node_name = str(f[4]);
    if (!labels(f[5], b.selector, &pod.n_node_selector))
        goto bad;
    pod.node_selector = b.selector;
    if (strcmp(f[6], "-") != 0) {
        pod.has_required_affinity = true;
        pod.affinity_terms = b.terms;
        if (strcmp(f[6], "!") != 0)
            for (char *t, *s = f[6];
                 (t = cut(&s, "|")) != NULL && pod.n_affinity_terms < MAX_ITEMS;)
                if (!term(t, &b, pod.n_affinity_terms++))
                    goto bad;
    }
    pod.n_tolerations = items(f[7], it);
    for (size_t i = 0; i < pod.n_tolerations; i++) {
        struct place_toleration *t = &b.tolerations[i];
        t->key = cut(&it[i], "=");
        const char *op = cut(&it[i], "=");
        t->value = cut(&it[i], ":");
        if (it[i] == NULL || place_toleration_op_parse(op, &t->op) != 0 ||
            place_taint_effect_parse(it[i], true, &t->effect) != 0)
            goto bad;
    }
    pod.tolerations = b.tolerations;
    place_judge_static(&pod, &node, &j);
    printf("rule %d reasons %u taint %d\n", (int)j.rule, j.reasons,
           j.taint != NULL ? (int)(j.taint - node.taints) : -1);
    return;
bad:
    puts("bad");
}

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;

    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        char *rest = line, *kind = cut(&rest, " ");
        if (strcmp(kind, "F") == 0) {
            fflush(stdout);
        } else if (strcmp(kind, "Q") == 0) {
            char *unit = cut(&rest, " ");
            if (unit == NULL || rest == NULL || (strcmp(unit, "c") != 0 && strcmp(unit, "m") != 0))
                puts("bad");
            else
                answer_quantity(unit, rest);
        } else if (rest == NULL) {
            puts("bad");
        } else if (strcmp(kind, "P") == 0) {
            answer_pod(rest);
        } else if (strcmp(kind, "S") == 0) {
            answer_score(rest);
        } else if (strcmp(kind, "T") == 0) {
            answer_constraints(rest);
        } else {
            puts("bad");
        }
    }
    free(line);
    return 0;
}
