/*
 * Reading /metrics in tests: fetch the page over loopback and look up one
 * series by its exact name and labels, as Prometheus would store it.
 */
#ifndef TESTS_SUPPORT_METRICS_SCRAPE_H
#define TESTS_SUPPORT_METRICS_SCRAPE_H

/* GETs /metrics from 127.0.0.1:@port; fails the test unless it answers 200
 * with the Prometheus text content type. Returns the malloc'd body. */
char *metrics_get(int port);

/* The value of @series (e.g. `cpu_extender_requests_total{verb="filter",status="200"}`)
 * in @text, or -1 when the page has no such line. */
double metrics_value(const char *text, const char *series);

/* The value of @series in @text; fails the test when the page has none. */
double metrics_must(const char *text, const char *series);

/* Checks every histogram in @text: cumulative buckets never decrease and
 * the +Inf bucket equals _count. Fails the test otherwise; returns how many
 * histogram series were checked. */
int metrics_assert_histograms(const char *text);

#endif
