/* Several strategies of one prepared simulation on threads
 * (place_sim_run_all): the runs only read the prepared data. */
#include "placement/simulate.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

struct job {
    const struct place_sim *sim;
    const enum score_strategy *s;
    struct place_sim_result *out;
    size_t first, step, n;
    int rc;
};

static void *run_jobs(void *arg)
{
    struct job *j = arg;
    for (size_t i = j->first; i < j->n && j->rc == 0; i += j->step)
        j->rc = place_sim_run(j->sim, j->s[i], &j->out[i]);
    return NULL;
}

int place_sim_run_all(const struct place_sim *sim, const enum score_strategy *s, size_t n,
                      unsigned threads, struct place_sim_result *out)
{
    enum { MAX_THREADS = 16 };
    struct job jobs[MAX_THREADS];
    pthread_t tid[MAX_THREADS] = {0};
    size_t t = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads, started = 1;
    int rc = 0;

    for (size_t i = 0; i < n; i++)
        memset(&out[i], 0, sizeof(out[i]));
    if (t > n)
        t = n > 0 ? n : 1;
    for (size_t i = 0; i < t; i++)
        jobs[i] = (struct job){.sim = sim, .s = s, .out = out, .first = i, .step = t, .n = n};
    /* Thread i runs strategies i, i + t, ...; the caller runs the first share. */
    for (; started < t; started++) {
        if (pthread_create(&tid[started], NULL, run_jobs, &jobs[started]) != 0) {
            rc = -EAGAIN;
            break;
        }
    }
    if (rc == 0)
        run_jobs(&jobs[0]);
    for (size_t i = 1; i < started; i++)
        pthread_join(tid[i], NULL);
    for (size_t i = 0; i < t && rc == 0; i++)
        rc = jobs[i].rc;
    if (rc != 0)
        for (size_t i = 0; i < n; i++)
            place_sim_result_destroy(&out[i]);
    return rc;
}
