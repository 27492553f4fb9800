# plantstore in a container. SQLite lives in the /data volume by default; set DATABASE_URL
# to postgres://… to use PostgreSQL instead (compose.yaml runs two instances that way).
#
#   docker build -t plantstore .
#   docker run -d --name plantstore -p 8080:8080 -v plantstore-data:/data plantstore
#   docker logs plantstore            # the first start prints an admin token on stderr
#   docker exec plantstore node build/src/cli.js token create --user alice

# Build: compile the TypeScript with the dev dependencies, then keep only production ones.
FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles its native module when no prebuilt binary fits the platform.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
RUN npm ci
COPY src ./src
RUN npm run build
RUN npm prune --omit=dev

# Run: node, the built files and the production dependencies, as the unprivileged user "node".
FROM node:20-bookworm-slim
ENV HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_URL=sqlite:/data/plantstore.db
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/build/src ./build/src
COPY LICENSE ./
RUN mkdir /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080
# The probe asks the address the server listens on: HOST when it names one, else loopback. Why
# it failed is its output, which `docker inspect` shows under State.Health.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const h = process.env.HOST || ''; const host = ['', '0.0.0.0', '::'].includes(h) ? '127.0.0.1' : h.includes(':') ? '[' + h + ']' : h; const url = 'http://' + host + ':' + (process.env.PORT || 8080) + '/readyz'; fetch(url).then((r) => { if (!r.ok) console.error(url + ' answered ' + r.status); process.exit(r.ok ? 0 : 1); }, (e) => { console.error(url + ': ' + (e.cause?.code ?? e.message)); process.exit(1); })"]
# node is PID 1 and handles SIGTERM itself: it drains within 10 s (docs/operations.md,
# "Stopping"), closes the database and exits 0. Give `docker stop` more than that: `--stop-timeout 30`, as the README's.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "build/src/cli.js"]
CMD ["serve"]
