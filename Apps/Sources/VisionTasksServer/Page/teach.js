// VisionTasks demo page, Teach panel: record a few seconds of each new gesture and of "none"
// from the camera while the live gesture session runs, train on the server, and the session
// answers with the new gestures at once; save the running gestures as a .task bundle, or load one
// saved earlier (or Model Maker's) to run its gestures. Everything
// goes over the page's live session as {"teach": ...} text messages (docs/server.md); the server
// keeps the samples and the trained classifiers for this session only, and sends a bundle asked
// for as a binary message after a "bundle" answer; a loaded bundle goes up in binary messages
// after the server's "receiving" answer.
'use strict';
(() => {
  // Recording time and epochs come from the panel, within these bounds (the server's epochs limit).
  const SECONDS = [1, 10, 3], EPOCHS = [1, 100, 10];
  const bounded = (id, [low, high, fallback]) => {
    const value = Math.round(Number($(id).value));
    return Number.isFinite(value) && value >= low && value <= high ? value : fallback;
  };
  const page = window.visionTasksPage, demo = window.visionTasksDemo;
  const $ = (id) => document.getElementById(id);

  // The panel's state, for people (the panel) and for the browser test (read through DevTools):
  // the label being recorded, samples per label, kept classifiers and the one running, the last
  // training's figures, the first hand's gesture in the latest answer, the gesture names
  // answered since the last training, and, in the order answered since then, runs of the same
  // gesture and hand ({gesture, hand, count}; gesture null while no hand is seen; the latest
  // TIMELINE runs), the last bundle saved ({name, bytes}) and the last one loaded ({name, labels,
  // bytes}: bytes of the classifier the server kept).
  const TIMELINE = 64;
  const teach = demo.teach = {
    recording: null, samples: {}, models: [], using: null, trained: null, gesture: null, seen: {}, timeline: [],
    saved: null, loaded: null, error: '',
  };
  let stopTimer = null, waiting = false;
  let expectedBundle = null;  // the "bundle" answer whose binary message comes next

  function status(text, isError) {
    const s = $('teach-status');
    s.textContent = text; s.classList.toggle('error', Boolean(isError));
    if (isError) teach.error = text;
  }

  function request(body) {
    if (!page.send(JSON.stringify({ teach: body }))) { status('Not connected to the server.', true); return false; }
    waiting = true;
    return true;
  }

  function record(label) {
    label = label.trim();
    if (!label) { status('Name the gesture first.', true); return; }
    if (!request({ record: label })) return;
    clearTimeout(stopTimer);
    stopTimer = setTimeout(stop, bounded('teach-seconds', SECONDS) * 1000);
  }

  function stop() {
    clearTimeout(stopTimer); stopTimer = null;
    request({ stop: true });
  }

  function note(gesture, hand) {
    const last = teach.timeline[teach.timeline.length - 1];
    if (last && last.gesture === gesture && last.hand === hand) { last.count += 1; return; }
    teach.timeline.push({ gesture, hand, count: 1 });
    if (teach.timeline.length > TIMELINE) teach.timeline.shift();
  }

  function render() {
    const list = $('teach-samples');
    list.innerHTML = '';
    for (const [label, count] of Object.entries(teach.samples).sort()) {
      const item = document.createElement('li');
      const name = document.createElement('span'), value = document.createElement('span');
      name.textContent = label + (label === teach.recording ? ' (recording)' : '');
      value.textContent = `${count} frames`;
      item.append(name, value);
      list.append(item);
    }
    $('teach-record').classList.toggle('recording', teach.recording !== null && teach.recording !== 'none');
    $('teach-record-none').classList.toggle('recording', teach.recording === 'none');
    const select = $('teach-use');
    select.innerHTML = '';
    const canned = document.createElement('option');
    canned.value = ''; canned.textContent = "the server's gestures";
    select.append(canned);
    for (const name of teach.models) {
      const option = document.createElement('option');
      option.value = name; option.textContent = name;
      select.append(option);
    }
    select.value = teach.using || '';
    $('teach-download').disabled = !teach.using;
  }

  // Saves the bundle the server sent as <name>.task through the browser's downloads.
  function save(data) {
    const bundle = expectedBundle;
    expectedBundle = null;
    if (!bundle || data.byteLength !== bundle.bytes) {
      status(`The bundle did not arrive whole (${data.byteLength} of ${bundle ? bundle.bytes : '?'} bytes): save it again.`, true);
      return;
    }
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([data], { type: 'application/octet-stream' }));
    link.download = `${bundle.name}.task`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
    teach.saved = { name: bundle.name, bytes: bundle.bytes };
    status(`Saved ${bundle.name}.task (${(bundle.bytes / 1e6).toFixed(1)} MB): run it with vision-tasks gesture --model ${bundle.name}.task, or in MediaPipe's GestureRecognizer.`);
  }

  // Loads a .task bundle from the device: frames are held back from the upload request on (a
  // frame must not come between the bundle's binary messages), and the page's other text
  // messages (a setting changed meanwhile) until the last part is sent (the server ends an upload
  // that a text message interrupts); the server answers "receiving", the bundle goes in parts of
  // at most the frame limit, and "uploaded" (or an error) ends it.
  let upload = null;  // {name, data} between the request and the server's last answer about it
  async function load(file) {
    const name = file.name.replace(/\.task$/i, '').replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 64) || 'loaded';
    const data = await file.arrayBuffer();
    if (upload) { status(`${upload.name}.task is still loading: load ${name}.task when it is done.`, true); return; }
    page.pauseFrames(true);
    if (!request({ upload: { name, bytes: data.byteLength } })) { page.pauseFrames(false); return; }
    page.holdTexts(true);
    upload = { name, data };
    status(`Loading ${name}.task (${(data.byteLength / 1e6).toFixed(1)} MB)…`);
  }

  function sendUpload() {
    const part = Math.max(1, page.maxBinaryBytes());
    for (let start = 0; start < upload.data.byteLength; start += part) page.send(upload.data.slice(start, start + part));
    page.holdTexts(false);
  }

  function endUpload() {
    if (upload) { upload = null; page.pauseFrames(false); page.holdTexts(false); }
  }

  function onTeachAnswer(answer) {
    waiting = false;
    teach.samples = answer.samples || {}; teach.models = answer.models || []; teach.using = answer.using;
    if (answer.event === 'recording') { teach.recording = answer.label; status(`Recording ${answer.label}: show it to the camera.`); }
    if (answer.event === 'stopped' || answer.event === 'cleared') {
      teach.recording = null; clearTimeout(stopTimer); stopTimer = null;
      status(answer.reason || (answer.event === 'cleared' ? 'Samples cleared.' : 'Recording stopped.'));
    }
    if (answer.event === 'trained') {
      teach.recording = null; teach.seen = {}; teach.timeline = [];
      teach.trained = {
        name: answer.name, labels: answer.labels, accuracy: answer.accuracy, confusionMatrix: answer.confusionMatrix,
        trainingSamples: answer.trainingSamples, testSamples: answer.testSamples, trainingMilliseconds: answer.trainingMilliseconds,
        epochs: answer.epochs,
      };
      const dropped = answer.dropped && answer.dropped.length ? ` (dropped to make room: ${answer.dropped.join(', ')})` : '';
      status(`Trained ${answer.name} on ${answer.trainingSamples} frames in ${Math.round(answer.trainingMilliseconds)} ms: ` +
        `${Math.round(answer.accuracy * 100)}% right on ${answer.testSamples} held-out frames. Running it now${dropped}.`);
    }
    if (answer.event === 'using') { teach.seen = {}; teach.timeline = []; status(`Running ${answer.using || "the server's gestures"}.`); }
    if (answer.event === 'receiving' && upload) { waiting = true; sendUpload(); }
    if (answer.event === 'uploaded') {
      endUpload();
      teach.seen = {}; teach.timeline = [];
      teach.loaded = { name: answer.name, labels: answer.labels, bytes: answer.bytes };
      const dropped = answer.dropped && answer.dropped.length ? ` (dropped to make room: ${answer.dropped.join(', ')})` : '';
      status(`Running ${answer.name}: ${answer.labels.join(', ')}${dropped}.`);
    }
    if (answer.event === 'bundle') {
      expectedBundle = { name: answer.label, bytes: answer.bytes };
      status(`Receiving ${answer.label}.task (${(answer.bytes / 1e6).toFixed(1)} MB)…`);
    }
    render();
  }

  page.onAnswer((answer) => {
    if (answer.type === 'connected') {
      // A new session: the server forgot what the old one was taught.
      Object.assign(teach, { recording: null, samples: {}, models: [], using: null, seen: {}, timeline: [] });
      clearTimeout(stopTimer); stopTimer = null; waiting = false; expectedBundle = null;
      endUpload();
      render();
    } else if (answer.type === 'result' && answer.task === 'gesture') {
      const gesture = (((answer.gesture || {}).gestures || [])[0] || [])[0];
      const hand = (((answer.gesture || {}).handedness || [])[0] || [])[0];
      teach.gesture = gesture ? gesture.categoryName : null;
      if (gesture) teach.seen[gesture.categoryName] = (teach.seen[gesture.categoryName] || 0) + 1;
      note(teach.gesture, hand ? hand.categoryName : null);
    } else if (answer.type === 'teach') {
      onTeachAnswer(answer);
    } else if (answer.type === 'binary') {
      save(answer.data);
    } else if (answer.type === 'error' && waiting && answer.timestampInMilliseconds == null) {
      // (An error with a timestamp is a frame's, not the answer to a teach request.)
      waiting = false;
      endUpload();
      teach.recording = null; clearTimeout(stopTimer); stopTimer = null;
      status(answer.error.message, true);
      render();
    }
  });

  $('teach-record').onclick = () => record($('teach-label').value);
  $('teach-record-none').onclick = () => record('none');
  $('teach-stop').onclick = stop;
  $('teach-clear').onclick = () => request({ clear: true });
  $('teach-train').onclick = () => {
    const epochs = bounded('teach-epochs', EPOCHS);
    if (request({ train: { name: $('teach-name').value.trim() || 'mine', epochs } })) status('Training…');
  };
  $('teach-use').onchange = () => request({ use: $('teach-use').value || null });
  $('teach-download').onclick = () => { if (teach.using) request({ download: teach.using }); };
  $('teach-upload').onclick = () => $('teach-upload-file').click();
  $('teach-upload-file').onchange = () => {
    const file = $('teach-upload-file').files[0];
    $('teach-upload-file').value = '';
    if (file) load(file);
  };
  render();
})();
