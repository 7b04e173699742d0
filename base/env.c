#include "base/env.h"

#include <string.h>

const char *env_get(char **envp, const char *name)
{
    size_t l = strlen(name);
    for (char **e = envp; e != NULL && *e != NULL; e++)
        if (strncmp(*e, name, l) == 0 && (*e)[l] == '=')
            return *e + l + 1;
    return NULL;
}
