// Built into static files the server embeds and answers under /ui (docs/ui.md).
import { defineConfig } from "vite";

export default defineConfig({
  base: "/ui/",
  esbuild: { jsx: "automatic" },
  build: {
    // The server's build passes --outDir build/ui-dist.
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: false,
    // No inline scripts or data: URLs, so the server's Content-Security-Policy can be strict.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 600,
  },
});
