# paywire sim without a Node toolchain: the `paywire` command as one executable (a Node single
# executable application, built by scripts/build-sea.mjs), copied into a small runtime image.
#
#   docker build -t paywire-sim .
#   docker run --rm -p 127.0.0.1:4010:4010 paywire-sim
#
# pnpm comes from the npm registry (as in CI), not corepack.
# Not built in CI (no container engine there); CI tests the same executable: scripts/check-wire.mjs.

FROM node:20-slim AS build
WORKDIR /src
RUN npm install -g pnpm@10
COPY . .
RUN pnpm install --frozen-lockfile && node scripts/build-sea.mjs

# The executable links glibc and libstdc++ dynamically, as node does: distroless "cc" has exactly
# those (Debian 12, like node:20-slim), and no shell or package manager.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/dist-sea/paywire /usr/local/bin/paywire
EXPOSE 4010
ENTRYPOINT ["/usr/local/bin/paywire"]
# Inside the container the simulator must listen on every interface to be reachable through the
# published port; publish it on 127.0.0.1 (the sandbox credentials are public).
CMD ["sim", "--host", "0.0.0.0", "--port", "4010"]
