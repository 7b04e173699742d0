{{/*
The cpu-extender image: repository@digest when a digest is set, else
repository:tag. An empty tag is refused: the version pushed, not latest.
*/}}
{{- define "cpu-extender.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else if .Values.image.tag -}}
{{- printf "%s:%s" .Values.image.repository (toString .Values.image.tag) -}}
{{- else -}}
{{- fail "image.tag (or image.digest) is empty: name the cpu-extender image you pushed" -}}
{{- end -}}
{{- end -}}

{{/* route is one of the two the chart knows. */}}
{{- define "cpu-extender.route" -}}
{{- if not (has .Values.route (list "second-scheduler" "main-scheduler")) -}}
{{- fail (printf "route %q: second-scheduler or main-scheduler" (toString .Values.route)) -}}
{{- end -}}
{{- .Values.route -}}
{{- end -}}

{{/* TLS on needs the Secret's name. */}}
{{- define "cpu-extender.tls" -}}
{{- if and .Values.tls.enabled (not .Values.tls.secretName) -}}
{{- fail "tls.enabled: tls.secretName names the Secret with tls.crt, tls.key and ca.crt" -}}
{{- end -}}
{{- if and .Values.tls.enabled (eq (include "cpu-extender.route" .) "main-scheduler") -}}
{{- fail "tls.enabled: the main-scheduler route's extender is configured on the node (manifests/kubeadm/config.json), not by the chart" -}}
{{- end -}}
{{- .Values.tls.enabled -}}
{{- end -}}
