#include "scoring/podreq.h"

#include <errno.h>
#include <stdint.h>

/* The source followed: staging/src/k8s.io/component-helpers/resource/helpers.go
 * (PodRequests, AggregateContainerRequests, aggregateContainerResourcesByFn,
 * the container*Requests getters), v1.37. Every value there is a
 * ResourceList, where a key can be missing; here one resource at a time as a
 * value and whether the list holds the key. Values are >= 0, so a missing
 * key adds and compares as 0; it matters only to which keys are defaulted. */

static const int64_t default_request[SCORE_NRES] = {
    [SCORE_CPU] = SCORE_DEFAULT_MILLI_CPU,
    [SCORE_MEMORY] = SCORE_DEFAULT_MEMORY,
};

/* One resource of a ResourceList. */
struct amount {
    int64_t v;
    bool has;
};

/* Which list of a container counts. */
enum source {
    SPEC,      /* containerSpecRequests */
    ALLOCATED, /* containerAllocatedRequests */
    ACTUATED,  /* containerActuatedRequests */
};

/* How a view reads the pod. */
struct view {
    enum score_resource r;
    bool non_zero;   /* NonMissingContainerRequests: a missing key counts the default */
    bool use_status; /* UseStatusResources and the pod-level resize status */
    /* The in-flight estimate (score_pod_estimate): a container's limit
     * where set, else its request (scaled in factor mode); NULL for a
     * request view. */
    const struct score_in_flight_rules *est;
};

static struct amount of_list(const int64_t req[SCORE_NRES], const bool has[SCORE_NRES],
                             enum score_resource r)
{
    return (struct amount){has[r] ? req[r] : 0, has[r]};
}

static const struct amount none = {0, false};

/* @v x @milli / 1000, rounded up to the whole millicore or byte (an
 * estimate errs towards more load); saturated at INT64_MAX, where the
 * state's sums saturate too. */
static int64_t scale_milli(int64_t v, int64_t milli)
{
    int64_t p;
    if (__builtin_mul_overflow(v, milli, &p))
        return INT64_MAX;
    return p / 1000 + (p % 1000 != 0);
}

/* What the estimate counts for one list: the limit where the list has
 * it, else @a (the request), times the factor in factor mode. */
static struct amount estimated(const struct score_container *c, struct amount a,
                               const struct view *v)
{
    if (c->has_lim[v->r])
        return (struct amount){c->lim[v->r], true};
    if (v->est->mode == SCORE_IN_FLIGHT_FACTOR && a.has)
        a.v = scale_milli(a.v, v->est->factor_milli[v->r]);
    return a;
}

/* The container's list from @src, then the default for a missing key. A
 * status list that is not there falls back as upstream does; an Infeasible
 * resize leaves no list (nil) where no status has one. */
static struct amount container_amount(const struct score_container *c, enum source src,
                                      bool infeasible, const struct view *v)
{
    struct amount a = of_list(c->req, c->has, v->r);
    if (src == ACTUATED && c->actuated.set)
        a = of_list(c->actuated.req, c->actuated.has, v->r);
    else if (src != SPEC && c->allocated.set)
        a = of_list(c->allocated.req, c->allocated.has, v->r);
    else if (src != SPEC && infeasible)
        a = none;
    if (v->non_zero && !a.has)
        a = (struct amount){default_request[v->r], true};
    if (v->est != NULL)
        a = estimated(c, a, v);
    return a;
}

static int add(struct amount *sum, struct amount x)
{
    if (__builtin_add_overflow(sum->v, x.v, &sum->v))
        return -ERANGE;
    sum->has = sum->has || x.has;
    return 0;
}

/* maxResourceList: the larger value; the key is there if either has it. */
static struct amount max_amount(struct amount a, struct amount b)
{
    return (struct amount){a.v > b.v ? a.v : b.v, a.has || b.has};
}

/* aggregateContainerResourcesByFn: the containers and sidecars summed, or
 * an init container with the sidecars started before it (KEP-753),
 * whichever is larger. */
static int aggregate(const struct score_pod *pod, enum source src, const struct view *v,
                     struct amount *out)
{
    struct amount sum = none, sidecars = none, init_max = none;
    bool infeasible = v->use_status && pod->resize_infeasible;

    for (size_t i = 0; i < pod->n_containers; i++)
        if (add(&sum, container_amount(&pod->containers[i], src, infeasible, v)) != 0)
            return -ERANGE;
    for (size_t i = 0; i < pod->n_init_containers; i++) {
        const struct score_container *c = &pod->init_containers[i];
        struct amount running = container_amount(c, src, infeasible, v);
        if (c->restartable) {
            /* A sidecar keeps running next to the app containers. */
            if (add(&sum, running) != 0 || add(&sidecars, running) != 0)
                return -ERANGE;
            running = sidecars;
        } else if (add(&running, sidecars) != 0) {
            return -ERANGE;
        }
        init_max = max_amount(init_max, running);
    }
    *out = max_amount(sum, init_max);
    return 0;
}

static struct amount of_status(const struct score_list *l, enum score_resource r)
{
    return l->set ? of_list(l->req, l->has, r) : none;
}

/* AggregateContainerRequests: the spec alone, or with the resize status the
 * largest of spec, actuated and allocated (the spec left out when the resize
 * is Infeasible). The pod-level status maps, when both are there, stand for
 * the containers' statuses (and get no defaults: they are sums already). */
static int containers_request(const struct score_pod *pod, const struct view *v, struct amount *out)
{
    struct amount spec, allocated, actuated;

    if (aggregate(pod, SPEC, v, &spec) != 0)
        return -ERANGE;
    if (!v->use_status) {
        *out = spec;
        return 0;
    }
    if (pod->status_allocated.set && pod->status_actuated.set) {
        allocated = of_status(&pod->status_allocated, v->r);
        actuated = of_status(&pod->status_actuated, v->r);
    } else if (aggregate(pod, ALLOCATED, v, &allocated) != 0 ||
               aggregate(pod, ACTUATED, v, &actuated) != 0) {
        return -ERANGE;
    }
    *out = max_amount(actuated, allocated);
    if (!pod->resize_infeasible)
        *out = max_amount(*out, spec);
    return 0;
}

/* PodRequests for one resource and view: the containers, then the pod-level
 * request replaces the key where it names it (with the resize status: the
 * largest of spec, actuated and allocated pod-level values, the spec left
 * out when Infeasible), then the overhead is added. */
static int request_of(const struct score_pod *pod, bool pod_level_set, const struct view *v,
                      struct amount *out)
{
    struct amount total;

    if (containers_request(pod, v, &total) != 0)
        return -ERANGE;
    if (pod_level_set) {
        struct amount level = of_list(pod->pod_level.req, pod->pod_level.has, v->r);
        if (v->est != NULL && (level.has || pod->pod_level.has_lim[v->r])) {
            bool own_limit = pod->pod_level.has_lim[v->r];
            level = estimated(&pod->pod_level, level, v);
            /* Without a pod-level limit the containers' limits still
             * bound what the pod may burn: the larger estimate counts. */
            if (!own_limit)
                level = max_amount(level, total);
        }
        if (v->use_status && pod->status_resources) {
            if (pod->resize_infeasible)
                level = none;
            level = max_amount(level, of_status(&pod->status_actuated, v->r));
            level = max_amount(level, of_status(&pod->status_allocated, v->r));
        }
        if (level.has)
            total = level;
    }
    if (pod->overhead.has[v->r] &&
        add(&total, of_list(pod->overhead.req, pod->overhead.has, v->r)) != 0)
        return -ERANGE;
    *out = total;
    return 0;
}

int score_pod_request(const struct score_pod *pod, struct score_pod_request *out)
{
    bool pod_level =
        pod->pod_level_set || pod->pod_level.has[SCORE_CPU] || pod->pod_level.has[SCORE_MEMORY];

    for (int r = 0; r < SCORE_NRES; r++) {
        const struct view fit = {(enum score_resource)r, false, false, NULL};
        const struct view real = {(enum score_resource)r, false, true, NULL};
        /* The scorers' view (defaults per container, then the pod-level
         * override) is also what NodeInfo's defaulted sum starts from: one
         * computation for both. */
        const struct view defaulted = {(enum score_resource)r, true, true, NULL};
        struct amount f, re, ch;
        if (request_of(pod, pod_level, &fit, &f) != 0 ||
            request_of(pod, pod_level, &real, &re) != 0 ||
            request_of(pod, pod_level, &defaulted, &ch) != 0)
            return -ERANGE;
        out->fit[r] = f.v;
        out->real[r] = re.v;
        out->non_zero_scored[r] = ch.v;
        /* NodeInfo's getNonMissingContainerRequests: with pod-level requests,
         * only a key PodRequests' result lacks gets the default, and then
         * every container lacks it, so the per-container sum is the one of
         * the defaulted view. */
        out->non_zero[r] = pod_level && re.has ? re.v : ch.v;
    }
    return 0;
}

static const char *const in_flight_names[] = {
    [SCORE_IN_FLIGHT_REQUESTS] = "requests",
    [SCORE_IN_FLIGHT_LIMITS] = "limits",
    [SCORE_IN_FLIGHT_FACTOR] = "factor",
};

const char *score_in_flight_name(enum score_in_flight m)
{
    return (unsigned)m < sizeof(in_flight_names) / sizeof(in_flight_names[0]) ? in_flight_names[m]
                                                                              : NULL;
}

int score_pod_estimate(const struct score_pod *pod, const struct score_in_flight_rules *rules,
                       int64_t out[SCORE_NRES])
{
    struct score_pod_request req;

    if (score_pod_request(pod, &req) != 0)
        return -ERANGE;
    if (rules->mode == SCORE_IN_FLIGHT_REQUESTS) {
        /* What in-flight damping has always charged: what the pod adds to
         * its node's NonZeroRequested. */
        for (int r = 0; r < SCORE_NRES; r++)
            out[r] = req.non_zero[r];
        return 0;
    }
    bool pod_level =
        pod->pod_level_set || pod->pod_level.has[SCORE_CPU] || pod->pod_level.has[SCORE_MEMORY];
    for (int r = 0; r < SCORE_NRES; r++) {
        /* The spec alone: a pod just placed has no resize status yet. A
         * container without a request counts the scoring default (as
         * non_zero does), then the estimate applies to it. */
        const struct view est = {(enum score_resource)r, true, false, rules};
        struct amount a;
        /* Limits near INT64_MAX can sum past it where the request does
         * not: the estimate then saturates (it errs towards more load),
         * as the state's sums do, rather than lose the pod. */
        out[r] = request_of(pod, pod_level, &est, &a) == 0 ? a.v : INT64_MAX;
    }
    return 0;
}
