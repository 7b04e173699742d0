/*
 * One request through libmicrohttpd: routing at the headers, limits, the
 * body read into the request's arena, the verb or GET endpoint called, the
 * answer queued, and everything the request held given back when it ends.
 */
#ifndef SERVER_HTTP_REQUEST_H
#define SERVER_HTTP_REQUEST_H

#include <stdarg.h>
#include <stddef.h>

#include <microhttpd.h>

/* MHD_OPTION_URI_LOG_CALLBACK: the one place the request-target is seen
 * as received, before libmicrohttpd splits and decodes it in place. The
 * request starts here: this returns its struct http_request (malloc'd;
 * NULL when out of memory), which libmicrohttpd hands the handler as
 * *req_cls and http_on_completed frees. @cls: the struct http_listener. */
void *http_on_uri(void *cls, const char *uri, struct MHD_Connection *conn);

/* The MHD access handler; @cls is the struct http_listener. */
enum MHD_Result http_on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                const char *method, const char *version, const char *upload_data,
                                size_t *upload_data_size, void **req_cls);

/* MHD_OPTION_NOTIFY_COMPLETED (@cls: the struct http_listener): frees what
 * the request held, on every path, and tells the guard. */
void http_on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                       enum MHD_RequestTerminationCode toe);

/* MHD_OPTION_EXTERNAL_LOGGER: libmicrohttpd's own messages, at debug. */
void http_on_mhd_log(void *cls, const char *fmt, va_list ap);

#endif
