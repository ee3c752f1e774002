// stonelab: the exported 3-D replay's loading notice and its ready signal.
//
// viser's client is a megabyte of script that unpacks in the browser (seconds on a busy machine);
// the notice before it is painted first and goes once the client has mounted. The page then says
// when the scene is drawn: the largest canvas, sampled at 48 x 32 pixels, shows many colours and
// the wooden table. Then <html data-stonelab-ready="drawn"> is set and a "stonelab-ready" event is
// sent on window, so that a headless browser can take its screenshot (docs/replay-viewer.md).
(function () {
  "use strict";
  var W = 48;
  var H = 32;

  function largestCanvas() {
    var best = null;
    var all = document.getElementsByTagName("canvas");
    for (var i = 0; i < all.length; i++) {
      if (!best || all[i].width * all[i].height > best.width * best.height) {
        best = all[i];
      }
    }
    return best && best.width > 0 && best.height > 0 ? best : null;
  }

  // whether the canvas shows a drawn scene: at least 12 colours (in steps of 8) and the wooden
  // table (reddish browns: r - b > 40, r > g > b) in at least 4 % of the samples (seen from the
  // replay's camera it fills 7-9 %; before that camera is set, viser's default view shows less)
  function drawn(canvas, probe) {
    var ctx = probe.getContext("2d");
    ctx.clearRect(0, 0, W, H);
    ctx.drawImage(canvas, 0, 0, W, H);
    var d = ctx.getImageData(0, 0, W, H).data;
    var colours = {};
    var n = 0;
    var brown = 0;
    for (var i = 0; i < d.length; i += 4) {
      var key = (d[i] >> 3) + "," + (d[i + 1] >> 3) + "," + (d[i + 2] >> 3);
      if (!colours[key]) {
        colours[key] = true;
        n++;
      }
      if (d[i] - d[i + 2] > 40 && d[i] > d[i + 1] && d[i + 1] > d[i + 2]) {
        brown++;
      }
    }
    return n >= 12 && brown >= (W * H * 4) / 100;
  }

  var probe = document.createElement("canvas");
  probe.width = W;
  probe.height = H;
  var seen = 0;
  var timer = setInterval(function () {
    var root = document.getElementById("root");
    if (root && root.childElementCount) {
      var notice = document.getElementById("stonelab-loading");
      if (notice) {
        notice.remove();
      }
    }
    var canvas = largestCanvas();
    // three samples in a row (0.3 s): a frame half drawn, or a camera still moving in, does not count
    seen = canvas && drawn(canvas, probe) ? seen + 1 : 0;
    if (seen >= 3) {
      clearInterval(timer);
      // two more animation frames: the canvas drawn is then on the page too (a screenshot taken
      // at once under load showed the frame before it)
      requestAnimationFrame(function () {
        requestAnimationFrame(function () {
          document.documentElement.setAttribute("data-stonelab-ready", "drawn");
          window.dispatchEvent(new Event("stonelab-ready"));
        });
      });
    }
  }, 100);
})();
