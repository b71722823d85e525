// Builds svc's local images (svc.local/busybox:latest, svc.local/pause:3.10) as OCI layout
// archives from the host's static busybox, into the image cache (`$SVC_IMAGE_CACHE`, default
// ~/.cache/svc/images). Reproducible: an archive whose digest is unchanged is not rewritten.
//   node --import tsx scripts/build-images.ts [--cache-dir DIR] [--busybox PATH] [--quiet]
import { buildLocalImages, defaultImageCacheDir, DEFAULT_BUSYBOX_BINARY } from '../src/nodeagent/index.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const cacheDir = option('--cache-dir') ?? defaultImageCacheDir();
const busybox = option('--busybox') ?? DEFAULT_BUSYBOX_BINARY;
try {
  const images = buildLocalImages(cacheDir, busybox);
  if (!process.argv.includes('--quiet')) {
    for (const image of [images.busybox, images.pause]) console.log(`${image.ref}\t${image.manifestDigest}\t${image.path}`);
  }
} catch (error) {
  console.error(`build-images: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
