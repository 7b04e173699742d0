/* Every Check suite of the test runner; one constructor per tested file. */
#ifndef TESTS_SUITES_H
#define TESTS_SUITES_H

#include <check.h>

Suite *quantity_suite(void);
Suite *podreq_suite(void);
Suite *fit_suite(void);
Suite *strategy_suite(void);
Suite *config_suite(void);
Suite *codec_suite(void);
Suite *scan_suite(void);
Suite *nodelist_suite(void);
Suite *ints_suite(void);
Suite *filter_need_suite(void);
Suite *verbs_suite(void);
Suite *e2e_suite(void);
Suite *bad_input_suite(void);
Suite *http_framing_suite(void);
Suite *tls_suite(void);
Suite *kubeconfig_suite(void);
Suite *fake_apiserver_suite(void);
Suite *client_suite(void);
Suite *exec_suite(void);
Suite *exec_output_suite(void);
Suite *informer_suite(void);
Suite *buf_suite(void);
Suite *err_suite(void);
Suite *table_suite(void);
Suite *file_suite(void);
Suite *log_suite(void);
Suite *metrics_suite(void);
Suite *used_suite(void);
Suite *state_suite(void);
Suite *cluster_suite(void);
Suite *ops_suite(void);
Suite *browser_suite(void);
Suite *placement_suite(void);
Suite *best_suite(void);
Suite *ring_suite(void);
Suite *shadow_suite(void);
Suite *shadow_report_suite(void);
Suite *selector_suite(void);
Suite *deadline_suite(void);
Suite *evaluate_suite(void);
Suite *limits_suite(void);
Suite *target_suite(void);
Suite *slots_suite(void);
Suite *manifests_suite(void);
Suite *constraints_suite(void);
Suite *simulate_suite(void);
Suite *listeners_suite(void);
Suite *cli_suite(void);
Suite *scheduler_config_suite(void);

#endif
