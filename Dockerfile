# alertmon against ClickHouse and Postgres servers (see docker-compose.yml).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
COPY web ./web
RUN npm run build

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
COPY package.json package-lock.json ./
# With both stores on servers the embedded engines are never loaded, so chDB's 540 MB
# engine binary (an optional, per-platform package) stays out of the image.
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY schema ./schema
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
CMD ["node", "--enable-source-maps", "dist/src/main.js"]
