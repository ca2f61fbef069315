// Explore panels: every slider gets an accessible name and value. The static book's widget manager draws
// ipywidgets sliders as noUiSlider handles (role="slider") with no aria-label and the grid index as
// aria-valuetext; this names each handle after its widget's label ("c [mm]") and reads its value from the
// widget's readout ("0.1"), again whenever the page changes (the widgets render after the page loads).
(function () {
  function label(root) {
    root.querySelectorAll(".widget-slider").forEach(function (w) {
      var name = w.querySelector(".widget-label");
      var readout = w.querySelector(".widget-readout");
      w.querySelectorAll('[role="slider"]').forEach(function (h) {
        if (name && name.textContent.trim() && h.getAttribute("aria-label") !== name.textContent.trim()) {
          h.setAttribute("aria-label", name.textContent.trim());
        }
        if (readout && readout.textContent.trim() && h.getAttribute("aria-valuetext") !== readout.textContent.trim()) {
          h.setAttribute("aria-valuetext", readout.textContent.trim());
        }
      });
    });
  }
  function start() {
    label(document);
    new MutationObserver(function () { label(document); }).observe(document.body, {
      childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ["aria-valuenow"]
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
