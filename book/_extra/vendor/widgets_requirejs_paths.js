// robolib book: map the widget manager's AMD module to vendor/html-manager/ beside
// this file, so it loads its icon fonts from there (works from disk and any server).
require.config({ paths: { "@jupyter-widgets/html-manager/dist": new URL("html-manager", document.currentScript.src).href } });
