// VisionTasks demo page, Settings panel: MediaPipe's options for the view's task (the number of
// hands or poses and the three confidences), smoothing and mirrored frames for hands, segmentation
// masks for poses. A change goes to the live session at once as an options message
// ({"numHands": 2}); the session's "ready" answer says what is in force, and when a new session
// starts (a reconnect, another view) the panel's options are sent again. A photo is asked again
// with them (image mode takes every option but smoothing).
'use strict';
(() => {
  const page = window.visionTasksPage, demo = window.visionTasksDemo;
  const $ = (id) => document.getElementById(id);

  // The options wanted, per kind of task (gesture and hands share theirs), in MediaPipe's names.
  const wanted = demo.settings = {
    hands: {
      numHands: 1, minHandDetectionConfidence: 0.5, minHandPresenceConfidence: 0.5, minTrackingConfidence: 0.5,
      smoothing: false, mirrored: false,
    },
    pose: {
      numPoses: 1, minPoseDetectionConfidence: 0.5, minPosePresenceConfidence: 0.5, minTrackingConfidence: 0.5,
      segmentationMasks: false,
    },
  };
  // Each control and the option it sets, per kind.
  const controls = {
    hands: {
      'set-count': 'numHands', 'set-detection': 'minHandDetectionConfidence', 'set-presence': 'minHandPresenceConfidence',
      'set-tracking': 'minTrackingConfidence', 'set-smoothing': 'smoothing', 'set-mirrored': 'mirrored',
    },
    pose: {
      'set-count': 'numPoses', 'set-detection': 'minPoseDetectionConfidence', 'set-presence': 'minPosePresenceConfidence',
      'set-tracking': 'minTrackingConfidence', 'set-masks': 'segmentationMasks',
    },
  };
  // Options that act over time only: the server refuses them on an HTTP request (image mode).
  const LIVE_ONLY = new Set(['smoothing']);
  const kindOf = (task) => (task === 'pose' ? 'pose' : 'hands');
  demo.settingsInForce = null;

  function status(text, problem) {
    const s = $('settings-status');
    s.textContent = text; s.classList.toggle('problem', Boolean(problem));
  }

  // The controls show the wanted options of the view's task.
  function show() {
    const kind = kindOf(page.task());
    $('set-count-label').textContent = kind === 'pose' ? 'Poses' : 'Hands';
    for (const [id, name] of Object.entries(controls[kind])) {
      const control = $(id), value = wanted[kind][name];
      if (control.type === 'checkbox') control.checked = value;
      else control.value = String(value);
      const output = $(id + '-value');
      if (output) output.textContent = Number(value).toFixed(2);
    }
  }

  // The wanted options of `kind` that differ from those in force (all of them when none are known).
  function differences(kind, inForce) {
    const changes = {};
    for (const [name, value] of Object.entries(wanted[kind])) {
      const current = inForce ? inForce[name] : undefined;
      const same = typeof value === 'number' ? Math.abs(Number(current) - value) < 1e-4 : current === value;
      if (!same) changes[name] = value;
    }
    return changes;
  }

  function sendChanges(changes) {
    if (!Object.keys(changes).length) return;
    if (page.send(JSON.stringify(changes))) status('Applying…');
    else status('Not connected: applied when the session is back.');
  }

  function changed(id) {
    const kind = kindOf(page.task()), name = controls[kind][id];
    if (!name) return;
    const control = $(id);
    wanted[kind][name] = control.type === 'checkbox' ? control.checked : Number(control.value);
    show();
    sendChanges(differences(kind, demo.settingsInForce && kindOf(demo.settingsInForce.task) === kind ? demo.settingsInForce : null));
    page.settingsChanged();
  }

  for (const id of ['set-count', 'set-detection', 'set-presence', 'set-tracking', 'set-smoothing', 'set-mirrored', 'set-masks']) {
    const control = $(id);
    control.onchange = () => changed(id);
    // A slider shows its value while it moves; the session hears the value where it stops.
    if (control.type === 'range') control.oninput = () => { $(id + '-value').textContent = Number(control.value).toFixed(2); };
  }
  for (const radio of document.querySelectorAll('input[name=view]')) radio.addEventListener('change', show);

  page.imageModeQuery = (task) => {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(wanted[kindOf(task)])) if (!LIVE_ONLY.has(name)) query.set(name, String(value));
    return query.toString();
  };

  page.onAnswer((answer) => {
    if (answer.type === 'connected') { demo.settingsInForce = null; return; }
    if (answer.type === 'error' && answer.timestampInMilliseconds === undefined && answer.error.code === 'badOption') {
      status(answer.error.message, true);
      return;
    }
    if (answer.type !== 'ready') return;
    demo.settingsInForce = answer;
    // The session is on another task than the view's: app.js switches it, and the next ready
    // answer is the view's.
    if (kindOf(answer.task) !== kindOf(page.task()) || (answer.task !== page.task())) return;
    const changes = differences(kindOf(answer.task), answer);
    if (Object.keys(changes).length) sendChanges(changes);
    else status('');
  });

  show();
})();
