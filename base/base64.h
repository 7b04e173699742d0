/* Base64 as kubeconfig *-data fields and ExecCredential carry it. */
#ifndef BASE_BASE64_H
#define BASE_BASE64_H

#include <stddef.h>

/*
 * Decodes standard, padded base64 (as Go's encoding/json does for []byte),
 * skipping whitespace, since YAML block scalars wrap long values. Returns a
 * malloc'd NUL-terminated buffer in *@out and its length in *@out_len, or
 * -EINVAL / -ENOMEM.
 */
int base64_decode(const char *in, size_t len, char **out, size_t *out_len);

/* Standard padded base64 of @n bytes (Go's []byte in JSON), malloc'd and
 * NUL-terminated; NULL when out of memory. */
char *base64_encode(const char *in, size_t n);

#endif
