// robolib book: map the MathJax 2 call of the Jupyter widget manager
// (MathJax.Hub.Queue(["Typeset", MathJax.Hub, element])) onto MathJax 3.
(function () {
  var mj = window.MathJax;
  if (!mj || mj.Hub || !mj.startup) { return; }
  mj.Hub = {
    Queue: function (job) {
      var el = job && job.length > 2 ? job[2] : undefined;
      mj.startup.promise.then(function () { return mj.typesetPromise(el ? [el] : undefined); });
    }
  };
})();
