/* Reading an environment given as a NULL-terminated "NAME=value" array
 * (main's environ), so that tests can pass their own. */
#ifndef BASE_ENV_H
#define BASE_ENV_H

/* The value of @name in @envp (may be NULL), or NULL when it is not set. */
const char *env_get(char **envp, const char *name);

#endif
