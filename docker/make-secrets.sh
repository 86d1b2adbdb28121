#!/bin/sh
# Writes the secrets `docker compose up` reads (./secrets, gitignored and outside the image):
# random passwords for the Postgres superuser and the two service roles, and the link signing
# secret. Existing files are kept, so running it again changes nothing.
set -eu
cd "$(dirname "$0")/.."
mkdir -p secrets
chmod 700 secrets
for name in postgres_password pis_owner_password pis_app_password link_signing_secret; do
  file="secrets/$name"
  if [ ! -s "$file" ]; then
    # URL-safe, so a password needs no escaping anywhere.
    head -c 32 /dev/urandom | base64 | tr -d '\n=' | tr '+/' '-_' > "$file"
    echo "wrote $file"
  fi
  # Readable inside the containers (Postgres runs as uid 70, the service as uid 1000); the
  # folder itself stays private to you.
  chmod 644 "$file"
done
