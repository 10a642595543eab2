# Multi-stage build: the toolchain builds the addon and the TypeScript; the runtime image carries only
# Node, the production dependencies, the compiled JavaScript and the .node file.
# Both stages run Node.js 24, the LTS line scripts/node-lts.sh pins for the tests (docs/deploy.md, "The
# Node.js runtime"): the tag names the line, so a rebuild takes its security releases.

FROM node:24-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY binding.gyp tsconfig.json tsconfig.build.json ./
COPY native ./native
COPY src ./src
# The image's own Node headers (the tarball the base image unpacked into /usr/local): no download.
RUN npx node-gyp rebuild --nodedir=/usr/local \
 && npx tsc -p tsconfig.build.json \
 && npm prune --omit=dev

FROM node:24-bookworm-slim
# nftables, conntrack and ipvsadm are not needed by the proxy (it speaks netlink itself, in every
# mode); they are here so an operator can `kubectl exec` and inspect what the proxy programmed.
RUN apt-get update \
 && apt-get install -y --no-install-recommends nftables conntrack ipvsadm \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/kube-proxy-native
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist/src ./dist/src
COPY --from=build /src/build/Release/kube_proxy_native.node ./build/Release/kube_proxy_native.node
COPY bin ./bin
# Upstream's DaemonSet runs /usr/local/bin/kube-proxy: the same path here makes the image a drop-in swap.
RUN ln -s /opt/kube-proxy-native/bin/kube-proxy-native.js /usr/local/bin/kube-proxy \
 && ln -s /opt/kube-proxy-native/bin/kube-proxy-native.js /usr/local/bin/kube-proxy-native
ENTRYPOINT ["/usr/local/bin/kube-proxy"]
