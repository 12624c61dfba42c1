// Download links for result Blobs: each offered Blob gets an object URL, which
// revokeAll() frees when the view is cleared (a URL pins its Blob in memory).

import { breakable, span } from "./dom.mjs";
import { formatBytes } from "./format.mjs";

export function createDownloadLinks() {
  let objectUrls = [];
  return {
    offer(link, blob, name) {
      const url = URL.createObjectURL(blob);
      objectUrls.push(url);
      link.href = url;
      link.download = name;
      link.replaceChildren("Download ", ...breakable(name), " ", span("size", formatBytes(blob.size)));
      link.hidden = false;
    },
    revokeAll() {
      for (const url of objectUrls) URL.revokeObjectURL(url);
      objectUrls = [];
    },
  };
}
