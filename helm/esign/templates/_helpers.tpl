{{/* Names ------------------------------------------------------------------------------------ */}}

{{- define "esign.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release-wide prefix of every object; short enough to leave room for a suffix. */}}
{{- define "esign.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Object name of a component: <fullname>-<key in kebab case>. Takes (dict "root" $ "key" $key). */}}
{{- define "esign.componentName" -}}
{{- printf "%s-%s" (include "esign.fullname" .root) (kebabcase .key) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "esign.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "esign.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Labels ----------------------------------------------------------------------------------- */}}

{{- define "esign.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "esign.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: esign
{{- end -}}

{{/* Selector labels of one component or infrastructure piece. Takes (dict "root" $ "component" "gateway"). */}}
{{- define "esign.selectorLabels" -}}
app.kubernetes.io/name: {{ include "esign.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "esign.componentLabels" -}}
{{ include "esign.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Images --------------------------------------------------------------------------------- */}}

{{/* The image of a component: the chart-wide image with the component's overrides. */}}
{{- define "esign.image" -}}
{{- $image := merge (deepCopy (default dict .component.image)) .root.Values.image -}}
{{- printf "%s:%s" $image.repository (default .root.Chart.AppVersion $image.tag | toString) -}}
{{- end -}}

{{- define "esign.imagePullPolicy" -}}
{{- $image := merge (deepCopy (default dict .component.image)) .root.Values.image -}}
{{- $image.pullPolicy -}}
{{- end -}}

{{/* Infrastructure endpoints --------------------------------------------------------------- */}}

{{- define "esign.natsUrl" -}}
{{- if and .Values.nats.enabled .Values.nats.cluster.enabled -}}
{{- /* Every server by its stable name: a service reaches the cluster while any one of them is up. */ -}}
{{- $name := printf "%s-nats" (include "esign.fullname" .) -}}
{{- $urls := list -}}
{{- range $i := until (int .Values.nats.cluster.replicas) -}}
{{- $urls = append $urls (printf "nats://%s-%d.%s-headless:4222" $name $i $name) -}}
{{- end -}}
{{- join "," $urls -}}
{{- else if .Values.nats.enabled -}}
{{- printf "nats://%s-nats:4222" (include "esign.fullname" .) -}}
{{- else -}}
{{- .Values.externalNats.url -}}
{{- end -}}
{{- end -}}

{{- define "esign.s3Endpoint" -}}
{{- if .Values.minio.enabled -}}
{{- printf "http://%s-minio:9000" (include "esign.fullname" .) -}}
{{- else -}}
{{- .Values.externalS3.endpoint -}}
{{- end -}}
{{- end -}}

{{- define "esign.publicBaseUrl" -}}
{{- if .Values.config.publicBaseUrl -}}
{{- .Values.config.publicBaseUrl -}}
{{- else if and .Values.ingress.enabled .Values.ingress.host -}}
{{- printf "%s://%s" (ternary "https" "http" .Values.ingress.tls.enabled) .Values.ingress.host -}}
{{- end -}}
{{- end -}}

{{/* Secret references: name and key of each secret setting, or empty when it is not configured. */}}

{{- define "esign.databaseSecret" -}}
{{- if .Values.postgresql.enabled -}}
{{- dict "name" (printf "%s-postgresql" (include "esign.fullname" .)) "key" "DATABASE_URL" | toJson -}}
{{- else if .Values.externalDatabase.existingSecret -}}
{{- dict "name" .Values.externalDatabase.existingSecret "key" (default "DATABASE_URL" .Values.externalDatabase.existingSecretKey) | toJson -}}
{{- else if .Values.externalDatabase.url -}}
{{- dict "name" (printf "%s-database" (include "esign.fullname" .)) "key" "DATABASE_URL" | toJson -}}
{{- else -}}
{{- dict | toJson -}}
{{- end -}}
{{- end -}}

{{- define "esign.s3Secret" -}}
{{- if .Values.minio.enabled -}}
{{- printf "%s-minio" (include "esign.fullname" .) -}}
{{- else if .Values.externalS3.existingSecret -}}
{{- .Values.externalS3.existingSecret -}}
{{- else if and .Values.externalS3.accessKey .Values.externalS3.secretKey -}}
{{- printf "%s-s3" (include "esign.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "esign.signingSecret" -}}
{{- if .Values.signing.existingSecret -}}
{{- .Values.signing.existingSecret -}}
{{- else if and .Values.signing.keyPem .Values.signing.certPem -}}
{{- printf "%s-signing" (include "esign.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* The Secret with SMTP_USER and SMTP_PASSWORD, or empty when the relay takes no credentials. */}}
{{- define "esign.mailSecret" -}}
{{- if .Values.mail.existingSecret -}}
{{- .Values.mail.existingSecret -}}
{{- else if and .Values.mail.user .Values.mail.password -}}
{{- printf "%s-mail" (include "esign.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* The Secret with WEBHOOK_SECRET_KEY: the existing one, or the chart's own (secrets.yaml). */}}
{{- define "esign.webhookSecret" -}}
{{- if .Values.webhooks.existingSecret -}}
{{- .Values.webhooks.existingSecret -}}
{{- else -}}
{{- printf "%s-webhook" (include "esign.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* True ("true") when some enabled component lists `need`. Takes (dict "root" $ "need" "database"). */}}
{{- define "esign.anyNeeds" -}}
{{- $found := false -}}
{{- range $key, $c := .root.Values.components -}}
{{- if and $c.enabled (has $.need (default list $c.needs)) -}}
{{- $found = true -}}
{{- end -}}
{{- end -}}
{{- if $found -}}true{{- end -}}
{{- end -}}

{{/*
Stops the render with a clear message when an enabled component needs something that is not
configured. Called once from the common ConfigMap.
*/}}
{{- define "esign.validate" -}}
{{- if and (not .Values.nats.enabled) (not .Values.externalNats.url) (not .Values.externalNats.existingSecret) -}}
{{- fail "NATS: set nats.enabled=true, or externalNats.url, or externalNats.existingSecret" -}}
{{- end -}}
{{- if include "esign.anyNeeds" (dict "root" . "need" "database") -}}
{{- if not (include "esign.databaseSecret" . | fromJson).name -}}
{{- fail "Postgres: set postgresql.enabled=true, or externalDatabase.existingSecret, or externalDatabase.url" -}}
{{- end -}}
{{- end -}}
{{- if include "esign.anyNeeds" (dict "root" . "need" "objectStorage") -}}
{{- if not (include "esign.s3Endpoint" .) -}}
{{- fail "Object storage: set minio.enabled=true or externalS3.endpoint" -}}
{{- end -}}
{{- if not (include "esign.s3Secret" .) -}}
{{- fail "Object storage: set externalS3.existingSecret, or both externalS3.accessKey and externalS3.secretKey" -}}
{{- end -}}
{{- end -}}
{{- if include "esign.anyNeeds" (dict "root" . "need" "mail") -}}
{{- if not .Values.mail.smtp.host -}}
{{- fail "Mail: set mail.smtp.host (the SMTP relay) for the mailer" -}}
{{- end -}}
{{- if and (not .Values.mail.existingSecret) (or .Values.mail.user .Values.mail.password) (not (and .Values.mail.user .Values.mail.password)) -}}
{{- fail "Mail: set both mail.user and mail.password (or mail.existingSecret)" -}}
{{- end -}}
{{- if not (include "esign.publicBaseUrl" .) -}}
{{- fail "Mail: the signing links need the public URL: set config.publicBaseUrl or ingress.enabled with ingress.host" -}}
{{- end -}}
{{- end -}}
{{- if and (not .Values.signing.existingSecret) (or .Values.signing.keyPem .Values.signing.certPem) (not (and .Values.signing.keyPem .Values.signing.certPem)) -}}
{{- fail "Signing: set both signing.keyPem and signing.certPem (or signing.existingSecret)" -}}
{{- end -}}
{{- if and .Values.metrics.enabled (eq .Values.metrics.exporter "otlp") -}}
{{- if and (not .Values.otel.endpoint) (not (hasKey .Values.config.extraEnv "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")) -}}
{{- fail "Metrics: metrics.exporter=otlp pushes to a collector: set otel.endpoint (or config.extraEnv.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)" -}}
{{- end -}}
{{- if .Values.metrics.serviceMonitor.enabled -}}
{{- fail "Metrics: metrics.serviceMonitor needs metrics.exporter=prometheus (with otlp there is nothing to scrape)" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.metrics.serviceMonitor.enabled (not .Values.metrics.enabled) -}}
{{- fail "Metrics: metrics.serviceMonitor.enabled needs metrics.enabled=true" -}}
{{- end -}}
{{- range $key, $c := .Values.components -}}
{{- if and $c.enabled $c.autoscaling $c.autoscaling.enabled $c.autoscaling.keda $c.autoscaling.keda.enabled -}}
{{- if and (ne $c.program "pdf-signer") (not $c.autoscaling.keda.query) -}}
{{- fail (printf "Autoscaling: components.%s.autoscaling.keda scales on the signer's queue wait by default; give it a keda.query of its own" $key) -}}
{{- end -}}
{{- if not $c.autoscaling.keda.serverAddress -}}
{{- fail (printf "Autoscaling: components.%s.autoscaling.keda.serverAddress must name the Prometheus KEDA queries (e.g. http://prometheus-operated.monitoring:9090)" $key) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Pod pieces ------------------------------------------------------------------------------- */}}

{{/* An httpGet probe from {path, ...rest}. Takes (dict "probe" $p "port" "http"). */}}
{{- define "esign.httpProbe" -}}
httpGet:
  path: {{ .probe.path }}
  port: {{ .port }}
{{- with omit .probe "path" }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The writable /tmp of a read-only root filesystem. */}}
{{- define "esign.tmpVolume" -}}
- name: tmp
  emptyDir:
    {{- with .Values.tmpVolume.sizeLimit }}
    sizeLimit: {{ . }}
    {{- end }}
{{- end -}}

{{/* Metrics ---------------------------------------------------------------------------------- */}}

{{/* "true" when the components serve /metrics for Prometheus to scrape. */}}
{{- define "esign.metricsScraped" -}}
{{- if and .Values.metrics.enabled (eq .Values.metrics.exporter "prometheus") -}}true{{- end -}}
{{- end -}}

{{/* The port a component serves /metrics on: its `health` port (empty when it has none). Takes a component. */}}
{{- define "esign.metricsPort" -}}
{{- with .ports.health -}}{{ .containerPort }}{{- end -}}
{{- end -}}

{{/* The scrape job of a component, as the alerts and the dashboard name it: esign-<program>. */}}
{{- define "esign.metricsJob" -}}
{{- printf "esign-%s" .program -}}
{{- end -}}
