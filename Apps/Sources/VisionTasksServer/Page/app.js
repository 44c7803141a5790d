// VisionTasks demo page: camera frames (or a video file's) to the server over a WebSocket,
// landmarks and gestures drawn over the preview (mirrored for the camera), a photo file answered
// once over HTTP in image mode, a stack of cards swiped by thumbs up / thumbs down, and on the
// Pose tab a workout: poses recorded as ML Kit samples, then repetitions counted by the server.
// settings.js keeps the session's MediaPipe options; teach.js is the Teach panel.
// Plain JavaScript, no build step, nothing loaded from other hosts.
'use strict';

const HAND_CONNECTIONS = [[0, 1], [1, 2], [2, 3], [3, 4], [0, 5], [5, 6], [6, 7], [7, 8], [5, 9], [9, 10], [10, 11],
  [11, 12], [9, 13], [13, 14], [14, 15], [15, 16], [13, 17], [0, 17], [17, 18], [18, 19], [19, 20]];
const POSE_CONNECTIONS = [[0, 1], [1, 2], [2, 3], [3, 7], [0, 4], [4, 5], [5, 6], [6, 8], [9, 10], [11, 12], [11, 13],
  [13, 15], [15, 17], [15, 19], [15, 21], [17, 19], [12, 14], [14, 16], [16, 18], [16, 20], [16, 22], [18, 20],
  [11, 23], [12, 24], [23, 24], [23, 25], [24, 26], [25, 27], [26, 28], [27, 29], [28, 30], [29, 31], [30, 32],
  [27, 31], [28, 32]];
const CARDS = [['Coral', '#ff6b6b'], ['Tangerine', '#ff9f43'], ['Sunflower', '#feca57'], ['Mint', '#1dd1a1'],
  ['Ocean', '#2e86de'], ['Violet', '#8e44ad']];
// Frames are sent at the camera's own aspect ratio, the longer side at most FRAME_WIDTH pixels.
const FRAME_WIDTH = 640, FRAME_HEIGHT = 480, JPEG_QUALITY = 0.8, ANSWER_TIMEOUT_MS = 5000;

const $ = (id) => document.getElementById(id);
const video = $('video'), photo = $('photo'), overlay = $('overlay'), ctx = overlay.getContext('2d');
const grab = document.createElement('canvas');
grab.width = FRAME_WIDTH; grab.height = FRAME_HEIGHT;
const grabCtx = grab.getContext('2d');

// What happened, for people (the page) and for the browser test (read through DevTools).
const demo = window.visionTasksDemo = {
  answers: 0, errors: [], events: [], swipes: [], framesWithLandmarks: 0, handIdentifiers: [], connected: false,
  reconnects: 0, closes: [],
  // The source ({kind: 'camera' | 'video' | 'photo', name}); the photo's answer ({task, people,
  // gestures, roundTripMilliseconds, masks: each segmentation mask's mean} or {error}); how many
  // masks were drawn; answers per number of hands or poses found
  // since the settings last changed ({"1": 40, "2": 3}); milliseconds from the page's start to
  // the first landmarks drawn; the server's time of the latest 300 live answers (ms).
  source: { kind: 'camera', name: '' }, photo: null, peopleSeen: {}, firstLandmarksMilliseconds: null, serverTimes: [],
  masksDrawn: 0,
};

// Other panels (teach.js) send messages on the session (text, or an ArrayBuffer for a binary
// message) and hear every answer, a
// {type: 'connected'} when a new session starts, and {type: 'binary', data} for a binary
// message, through this.
const answerListeners = [];
window.visionTasksPage = {
  send(message) {
    if (typeof message === 'string') return sendText(message);
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(message);
    return true;
  },
  onAnswer(listener) { answerListeners.push(listener); },
  /// The view's task: 'gesture' or 'pose'.
  task() { return task; },
  /// settings.js sets this: the options of `task` for an HTTP request (image mode), as a query.
  imageModeQuery: () => '',
  /// Holds camera and video frames back (teach.js, while a bundle goes up: its binary messages
  /// must not be mixed with frames) or lets them go again.
  pauseFrames(paused) { framesPaused = paused; },
  /// Holds text messages back in the order sent (teach.js, from a bundle's upload request until
  /// its last part is sent: a text message in between ends the upload) or sends those held.
  holdTexts(hold) {
    if (hold) { heldTexts = heldTexts || []; return; }
    const held = heldTexts || [];
    heldTexts = null;
    for (const text of held) sendText(text);
  },
  /// The largest binary message the session takes besides a frame's header (its ready answer).
  maxBinaryBytes() { return imageLimits.maxImageBytes; },
  /// settings.js calls this after the options changed: counts start over, a photo is asked again.
  settingsChanged() {
    demo.peopleSeen = {};
    if (source === 'photo') answerPhoto();
  },
};

let task = 'gesture';
let source = 'camera', photoBlob = null, photoRequest = 0;
// The server's image limits, from its ready answer: a photo is made to fit them.
let imageLimits = { maxImageBytes: 16 * 1024 * 1024, maxImagePixels: 4096 * 4096 };
let socket = null, inFlight = false, sentAt = 0, lastTimestamp = -1, framesPaused = false;
// Text messages held back while a bundle goes up (null when none are held).
let heldTexts = null;
// Sends a text message on the session, or holds it back while a bundle goes up; false when the
// session is not open.
function sendText(text) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return false;
  if (heldTexts) heldTexts.push(text);
  else socket.send(text);
  return true;
}
// Reconnecting after a close (1001 when the server drains, a lost connection, a full server):
// 250 ms doubling to 5 s, each wait ±30 % at random so that the sessions of a server that went
// away do not all come back at once; back to 250 ms once a session is ready.
const RECONNECT_FIRST_MS = 250, RECONNECT_MOST_MS = 5000, RECONNECT_JITTER = 0.3;
let reconnectDelay = RECONNECT_FIRST_MS;
function nextReconnectWait() {
  const wait = reconnectDelay * (1 - RECONNECT_JITTER + Math.random() * 2 * RECONNECT_JITTER);
  reconnectDelay = Math.min(reconnectDelay * 2, RECONNECT_MOST_MS);
  return Math.round(wait);
}
let answerTimes = [];
let cameraProblem = '';  // what is wrong with the camera, shown again once the server is back

// ---------- messages ----------
function showMessage(text, kind) {
  const m = $('message');
  m.textContent = text; m.hidden = !text; m.className = 'message' + (kind === 'info' ? ' info' : '');
}
function setStatus(text) { $('status').textContent = text; }
function cameraFailed(text) {
  if (source !== 'camera') return;  // a file was chosen meanwhile: the camera is not wanted now
  cameraProblem = text; demo.cameraProblem = text; showMessage(text);
}

// ---------- camera ----------
async function startCamera() {
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    cameraFailed('This browser gives no camera access here (open the page from http://127.0.0.1 or localhost, or over https).');
    return false;
  }
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { width: FRAME_WIDTH, height: FRAME_HEIGHT }, audio: false });
    if (source !== 'camera') { for (const track of stream.getTracks()) track.stop(); return false; }  // a file was chosen meanwhile
    video.srcObject = stream;
    await video.play();
    return true;
  } catch (error) {
    if (error.name === 'NotAllowedError' || error.name === 'SecurityError') {
      cameraFailed('Camera permission was refused. Allow the camera for this page and reload.');
    } else if (error.name === 'NotFoundError' || error.name === 'OverconstrainedError') {
      cameraFailed('No camera found. Connect a camera and reload; the buttons still swipe the cards.');
    } else {
      cameraFailed('The camera could not be started: ' + error.name + ' ' + error.message);
    }
    setStatus('no camera');
    return false;
  }
}

// ---------- server ----------
function connect() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  socket = new WebSocket(`${scheme}//${location.host}/v1/live?task=${task}&numHands=1`);
  socket.binaryType = 'arraybuffer';
  setStatus('connecting');
  socket.onopen = () => {
    demo.connected = true; inFlight = false;
    setStatus('connected'); showMessage(cameraProblem);
    if (workout.active && task === 'pose') startCounting();  // a new session: the workout again, counts from zero
    for (const listener of answerListeners) listener({ type: 'connected' });
  };
  socket.onmessage = (message) => {
    if (typeof message.data === 'string') { onAnswer(JSON.parse(message.data)); return; }
    // A binary message (a taught bundle the Teach panel asked for) goes to the panels.
    for (const listener of answerListeners) listener({ type: 'binary', data: message.data });
  };
  socket.onclose = (close) => {
    demo.connected = false; inFlight = false;
    heldTexts = null;  // they were for the session that ended
    const why = close.reason ? ` (${close.reason})` : '';
    const wait = nextReconnectWait();
    showMessage(`The server went away${why}. Reconnecting in ${(wait / 1000).toFixed(1)} s…`, 'info');
    setStatus('disconnected');
    demo.disconnects = (demo.disconnects || 0) + 1;
    demo.closes.push({ code: close.code, reason: close.reason, wait });
    if (demo.closes.length > 50) demo.closes.splice(1, 1);  // the first close and the latest 49
    // The new session opens with the view chosen now (the URL's task); the workout is sent
    // again on open and the teach panel hears 'connected'.
    setTimeout(() => { demo.reconnects += 1; connect(); }, wait);
  };
}

function sendFrame() {
  if (source === 'photo' || framesPaused || !socket || socket.readyState !== WebSocket.OPEN || inFlight || video.readyState < 2) return;
  inFlight = true; sentAt = performance.now();
  // A camera may give another size or shape than asked for (1280x720, say): keep its aspect ratio,
  // or the hand would be squashed for the models and the overlay would not fit the preview.
  const scale = Math.min(1, FRAME_WIDTH / Math.max(video.videoWidth || FRAME_WIDTH, video.videoHeight || FRAME_HEIGHT));
  const width = Math.round((video.videoWidth || FRAME_WIDTH) * scale), height = Math.round((video.videoHeight || FRAME_HEIGHT) * scale);
  if (grab.width !== width || grab.height !== height) { grab.width = width; grab.height = height; }
  grabCtx.drawImage(video, 0, 0, width, height);
  const timestamp = Math.max(lastTimestamp + 1, Math.round(performance.now()));
  lastTimestamp = timestamp;
  grab.toBlob(async (blob) => {
    if (!blob || framesPaused || !socket || socket.readyState !== WebSocket.OPEN) { inFlight = false; return; }
    const jpeg = new Uint8Array(await blob.arrayBuffer());
    // Checked again after the wait: a bundle upload may have begun meanwhile (teach.js).
    if (framesPaused || !socket || socket.readyState !== WebSocket.OPEN) { inFlight = false; return; }
    const frame = new Uint8Array(8 + jpeg.length);
    new DataView(frame.buffer).setBigInt64(0, BigInt(timestamp), true);  // 8-byte little-endian timestamp (ms)
    frame.set(jpeg, 8);
    socket.send(frame);
  }, 'image/jpeg', JPEG_QUALITY);
}

function onAnswer(answer) {
  for (const listener of answerListeners) listener(answer);
  if (answer.type === 'ready') {
    reconnectDelay = RECONNECT_FIRST_MS;
    imageLimits = { maxImageBytes: answer.maxImageBytes, maxImagePixels: answer.maxImagePixels };
    // The view chosen before the session was open (or while it reconnected) wins.
    if (answer.task !== task) sendText(JSON.stringify({ task }));
    return;
  }
  if (answer.type === 'workout') { onWorkout(answer); return; }
  if (answer.type === 'error') {
    // An error about no frame (timestamp) answers a message, such as a workout's samples.
    if (answer.timestampInMilliseconds === undefined && answer.error.code === 'badSamples') {
      demo.errors.push(answer.error); workoutMessage(answer.error.message, true); return;
    }
    inFlight = false;
    demo.errors.push(answer.error);
    if (answer.error.code === 'tooManySessions') showMessage('The server is full: ' + answer.error.message);
    else setStatus('error: ' + answer.error.message);
    return;
  }
  if (answer.type !== 'result') return;
  inFlight = false;
  if (source === 'photo') return;  // a late answer to the last video frame: the photo is shown now
  demo.answers += 1;
  const now = performance.now();
  answerTimes.push(now);
  answerTimes = answerTimes.filter((t) => now - t < 1000);
  $('fps').textContent = answerTimes.length;
  $('server-time').textContent = answer.processingMilliseconds.toFixed(1) + ' ms';
  demo.serverTimes.push(answer.processingMilliseconds);
  if (demo.serverTimes.length > 300) demo.serverTimes.shift();
  $('dropped').textContent = answer.droppedFrames;
  setStatus('live');
  if (answer.task === 'pose') onPoseResult(answer);
  draw(answer);
  for (const event of answer.events || []) onEvent(event);
}

// ---------- drawing ----------
function draw(answer) {
  const w = overlay.width = overlay.clientWidth, h = overlay.height = overlay.clientHeight;
  ctx.clearRect(0, 0, w, h);
  // The frame is letterboxed into the preview like the video (object-fit: contain), and mirrored
  // as the camera's preview is.
  const scale = Math.min(w / answer.width, h / answer.height);
  const dx = (w - answer.width * scale) / 2, dy = (h - answer.height * scale) / 2;
  const mirrored = source === 'camera';
  const point = (p) => [dx + (mirrored ? 1 - p.x : p.x) * answer.width * scale, dy + p.y * answer.height * scale];
  const result = answer[answer.task];
  if (!result) return;
  const people = result.landmarks || [];
  demo.peopleSeen[people.length] = (demo.peopleSeen[people.length] || 0) + 1;
  if (people.length && demo.firstLandmarksMilliseconds === null) {
    demo.firstLandmarksMilliseconds = Math.round(performance.now());
    $('first-landmarks').textContent = `${(demo.firstLandmarksMilliseconds / 1000).toFixed(1)} s`;
  }
  if (answer.task === 'pose') drawMasks(result.segmentationMasks || [], dx, dy, answer.width * scale, answer.height * scale, mirrored);
  const ids = answer.handIdentifiers || answer.poseIdentifiers || [];
  // A count first, then the tracked identifiers: "1 (#2)" is one hand, tracked as hand 2.
  const tracked = ids.length ? ` (${ids.map((id) => '#' + id).join(', ')})` : '';
  $('hands').textContent = `${people.length}${tracked}`;
  demo.handIdentifiers = ids;
  if (people.length) demo.framesWithLandmarks += 1;
  people.forEach((landmarks, i) => {
    const color = answer.task === 'pose' ? '#4fc3f7' : (i === 0 ? '#3ddc84' : '#ffb74d');
    const connections = answer.task === 'pose' ? POSE_CONNECTIONS : HAND_CONNECTIONS;
    ctx.strokeStyle = color; ctx.lineWidth = 3; ctx.fillStyle = '#fff';
    for (const [a, b] of connections) {
      if (!landmarks[a] || !landmarks[b]) continue;
      const [x1, y1] = point(landmarks[a]), [x2, y2] = point(landmarks[b]);
      ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke();
    }
    for (const p of landmarks) {
      const [x, y] = point(p);
      ctx.beginPath(); ctx.arc(x, y, 4, 0, 2 * Math.PI); ctx.fill();
    }
    if (answer.task === 'pose' && i === 0 && workout.active) drawCount(answer);
    if (answer.task !== 'pose') {
      const side = ((result.handedness || [])[i] || [])[0];
      const gesture = ((result.gestures || [])[i] || [])[0];
      let label = side ? side.categoryName : 'hand';
      if (ids[i] !== undefined) label = `#${ids[i]} ${label}`;
      if (gesture) label += ` · ${gesture.categoryName} ${gesture.score.toFixed(2)}`;
      const [x, y] = point(landmarks[0]);
      ctx.font = 'bold 18px system-ui, sans-serif';
      const width = ctx.measureText(label).width;
      // Centred under the wrist, kept inside the preview.
      const left = Math.max(6, Math.min(w - width - 6, x - width / 2)), top = Math.min(h - 30, y + 10);
      ctx.fillStyle = 'rgba(0, 0, 0, .65)'; ctx.fillRect(left - 6, top, width + 12, 26);
      ctx.fillStyle = color; ctx.fillText(label, left, top + 19);
    }
  });
}

// A pose's segmentation mask, under its skeleton: answers carry each mask as a 16 × 16 grid of
// cell means (0 to 1) over the whole frame, drawn here as a translucent layer, smoothed as the
// browser scales it up to the frame's place in the preview.
const maskCells = document.createElement('canvas');
function drawMasks(masks, x, y, width, height, mirrored) {
  for (const mask of masks) {
    const grid = mask.grid16 || [];
    const rows = grid.length, columns = rows ? grid[0].length : 0;
    if (!rows || !columns) continue;
    maskCells.width = columns; maskCells.height = rows;
    const cellsCtx = maskCells.getContext('2d'), pixels = cellsCtx.createImageData(columns, rows);
    grid.forEach((row, r) => row.forEach((value, c) => {
      const i = (r * columns + c) * 4;
      pixels.data[i] = 156; pixels.data[i + 1] = 100; pixels.data[i + 2] = 255;
      pixels.data[i + 3] = Math.round(Math.max(0, Math.min(1, value)) * 190);
    }));
    cellsCtx.putImageData(pixels, 0, 0);
    ctx.save();
    ctx.imageSmoothingEnabled = true; ctx.imageSmoothingQuality = 'high';
    if (mirrored) { ctx.translate(2 * x + width, 0); ctx.scale(-1, 1); }
    ctx.drawImage(maskCells, x, y, width, height);
    ctx.restore();
    demo.masksDrawn += 1;
  }
}

// ---------- workout ----------
// Samples are ML Kit's CSV lines (name,class,x1,y1,z1,...,x33,y33,z33: pixels, z in the scale of
// x), made here from the server's pose answers; the server classifies and counts with them.
const RECORD_LIMIT = 60;  // samples recorded per class at most
const workout = demo.workout = {
  recording: null, samples: { up: [], down: [] }, loaded: [], active: false,
  countedClasses: [], count: 0, counts: {}, topClass: '', confidence: 0, history: [],
};
const exerciseName = () => ($('exercise').value.trim() || 'exercise').replace(/[^A-Za-z0-9_-]/g, '_');
function workoutMessage(text, problem) {
  const m = $('workout-message');
  m.textContent = text; m.classList.toggle('problem', Boolean(problem));
}
function showSamples() {
  $('samples-up').textContent = workout.samples.up.length;
  $('samples-down').textContent = workout.samples.down.length;
  $('samples-loaded').textContent = workout.loaded.length ? `· loaded ${workout.loaded.length}` : '';
  for (const kind of ['up', 'down']) {
    const button = $('record-' + kind), recording = workout.recording === kind;
    button.classList.toggle('recording', recording);
    button.textContent = recording ? `Stop (${workout.samples[kind].length})` : `Record ${kind}`;
  }
}
function record(kind) {
  workout.recording = workout.recording === kind ? null : kind;
  if (workout.recording) { workout.samples[kind] = []; workoutMessage(`Hold the ${kind} position; recording…`); }
  else workoutMessage('');
  showSamples();
}
function allSamples() {
  return workout.loaded.concat(workout.samples.up, workout.samples.down);
}
function startCounting() {
  const lines = allSamples();
  if (!lines.length) { workoutMessage('Record up and down first, or load a samples CSV.', true); return; }
  if (!socket || socket.readyState !== WebSocket.OPEN) { workoutMessage('Not connected to the server.', true); return; }
  workout.recording = null; showSamples();
  // Count the classes that end in _down (ML Kit's sample counts pushups_down and squats_down).
  const classes = [...new Set(lines.map((line) => line.split(',')[1]))];
  const count = classes.filter((name) => name.endsWith('_down'));
  const body = { samples: lines.join('\n') + '\n' };
  if (count.length) body.count = count;
  sendText(JSON.stringify({ workout: body }));
}
function onWorkout(answer) {
  workout.active = answer.active;
  workout.countedClasses = answer.countedClasses || [];
  workout.count = 0; workout.counts = {}; workout.topClass = ''; workout.history = [];
  $('rep-count').textContent = answer.active ? '0' : '–';
  $('rep-class').textContent = '';
  workoutMessage(answer.active
    ? `Counting ${workout.countedClasses.join(', ') || 'nothing: no class has enough samples'} (${answer.classes.map((c) => `${c}: ${answer.sampleCounts[c]}`).join(', ')} samples)`
    : 'Counting stopped.');
}
function onPoseResult(answer) {
  const pose = (answer.pose.landmarks || [])[0];
  demo.lastPose = pose || null;
  if (workout.recording && pose && workout.samples[workout.recording].length < RECORD_LIMIT) {
    const kind = workout.recording, list = workout.samples[kind], name = exerciseName();
    const values = [];
    for (const p of pose) values.push((p.x * answer.width).toFixed(2), (p.y * answer.height).toFixed(2), (p.z * answer.width).toFixed(2));
    list.push(`${name}_${kind}_${list.length + 1},${name}_${kind},${values.join(',')}`);
    if (list.length >= RECORD_LIMIT) { workout.recording = null; workoutMessage(`Recorded ${RECORD_LIMIT} ${kind} samples.`); }
    showSamples();
  }
  const first = (answer.classifications || [])[0];
  if (!workout.active || !first) return;
  workout.counts = first.repetitionCounts;
  const count = workout.countedClasses.reduce((sum, name) => sum + (first.repetitionCounts[name] || 0), 0);
  if (count !== workout.count) workout.history.push({ count, frame: answer.frame, timestampInMilliseconds: answer.timestampInMilliseconds });
  workout.count = count;
  const confidences = first.smoothedClassification.confidences;
  const top = Object.keys(confidences).sort((a, b) => confidences[b] - confidences[a])[0] || '';
  workout.topClass = top; workout.confidence = confidences[top] || 0;
  $('rep-count').textContent = String(count);
  $('rep-class').textContent = top ? `${top} ${workout.confidence.toFixed(1)}` : 'no pose';
}
function drawCount(answer) {
  ctx.save();
  ctx.font = 'bold 120px system-ui, sans-serif'; ctx.textBaseline = 'top';
  ctx.lineWidth = 8; ctx.strokeStyle = 'rgba(0, 0, 0, .7)'; ctx.fillStyle = '#fff';
  ctx.strokeText(String(workout.count), 20, 16); ctx.fillText(String(workout.count), 20, 16);
  ctx.font = 'bold 22px system-ui, sans-serif'; ctx.lineWidth = 5;
  const label = workout.topClass || '';
  ctx.strokeText(label, 24, 146); ctx.fillText(label, 24, 146);
  ctx.restore();
}
function saveSamples() {
  const lines = allSamples();
  const link = $('samples-save');
  if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([lines.join('\n') + (lines.length ? '\n' : '')], { type: 'text/csv' }));
  link.download = `${exerciseName()}_samples.csv`;
}
async function loadSamples(file) {
  if (!file) return;
  if (file.size > 2 * 1024 * 1024) { workoutMessage('That file is over 2 MiB, the most the server takes.', true); return; }
  const text = await file.text();
  workout.loaded = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  workoutMessage(`Loaded ${workout.loaded.length} samples from ${file.name}.`);
  showSamples();
}
$('record-up').onclick = () => record('up');
$('record-down').onclick = () => record('down');
$('count-start').onclick = startCounting;
$('count-reset').onclick = () => { sendText(JSON.stringify({ workout: { reset: true } })); };
$('count-stop').onclick = () => { sendText(JSON.stringify({ workout: { stop: true } })); };
$('samples-save').onclick = saveSamples;
$('samples-file').onchange = (event) => loadSamples(event.target.files[0]);

// ---------- cards ----------
let deck = [];
function resetDeck() {
  const holder = $('deck');
  holder.innerHTML = '';
  deck = CARDS.map(([name, color], i) => {
    const card = document.createElement('div');
    card.className = 'card'; card.style.background = color; card.style.zIndex = String(CARDS.length - i);
    card.style.setProperty('--depth', String(i));
    card.dataset.name = name;
    card.innerHTML = `<span class="stamp like">LIKE</span><span class="stamp nope">NOPE</span>${name}<small>${i + 1} / ${CARDS.length}</small>`;
    holder.appendChild(card);
    return card;
  });
  demo.liked = 0; demo.passed = 0;
  $('liked').textContent = '0'; $('passed').textContent = '0';
  $('deck-empty').hidden = true;
}
function swipe(direction, source) {
  const card = deck.shift();
  if (!card) return;
  card.classList.add(direction === 'right' ? 'like' : 'nope');
  deck.forEach((rest, i) => rest.style.setProperty('--depth', String(i)));
  demo.swipes.push({ direction, card: card.dataset.name, source });
  if (direction === 'right') { demo.liked += 1; $('liked').textContent = demo.liked; }
  else { demo.passed += 1; $('passed').textContent = demo.passed; }
  $('deck-empty').hidden = deck.length > 0;
}
function onEvent(event) {
  demo.events.push(event);
  const item = document.createElement('li');
  item.textContent = `${event.event} · hand #${event.hand} (${event.handedness}) at ${event.timestampInMilliseconds} ms`;
  $('event-log').prepend(item);
  if (event.event === 'thumbsUp' || event.event === 'swipeRight') swipe('right', event.event);
  if (event.event === 'thumbsDown' || event.event === 'swipeLeft') swipe('left', event.event);
}
$('like').onclick = () => swipe('right', 'button');
$('nope').onclick = () => swipe('left', 'button');
$('reset').onclick = resetDeck;
$('deal').onclick = resetDeck;

// ---------- views ----------
for (const radio of document.querySelectorAll('input[name=view]')) {
  radio.onchange = () => {
    task = radio.value;
    document.body.classList.toggle('pose-view', task === 'pose');
    $('people-label').textContent = task === 'pose' ? 'poses' : 'hands';
    demo.peopleSeen = {};
    if (source === 'photo') answerPhoto();
    // The session switches task with an options message (its tracking starts over).
    sendText(JSON.stringify({ task }));
  };
}

// ---------- sources: the camera, a video file, a photo file ----------
function stopCamera() {
  if (video.srcObject) for (const track of video.srcObject.getTracks()) track.stop();
  video.srcObject = null;
}
function useSource(kind, name) {
  source = kind;
  demo.source = { kind, name };
  demo.peopleSeen = {}; demo.photo = null;
  $('preview').classList.toggle('mirrored', kind === 'camera');
  video.hidden = kind === 'photo'; photo.hidden = kind !== 'photo';
  $('source-name').textContent = name;
  $('source-camera').checked = kind === 'camera';
  ctx.clearRect(0, 0, overlay.width, overlay.height);
  inFlight = false;
}
async function useCamera() {
  if (video.src) { URL.revokeObjectURL(video.src); video.removeAttribute('src'); }
  useSource('camera', '');
  if (await startCamera()) showMessage(cameraProblem = demo.cameraProblem = '');
}
async function useFile(file) {
  if (!file) return;
  stopCamera();
  cameraProblem = demo.cameraProblem = ''; showMessage('');
  if (video.src) { URL.revokeObjectURL(video.src); video.removeAttribute('src'); }
  if (file.type.startsWith('video/')) {
    useSource('video', file.name);
    video.src = URL.createObjectURL(file);
    video.loop = true;
    try { await video.play(); } catch (error) { showMessage(`This browser cannot play ${file.name}: ${error.message}`); }
    return;
  }
  useSource('photo', file.name);
  try {
    // Decoded here (any format the browser reads), at most 1920 pixels on its longer side and
    // within the server's limits, and sent as JPEG: the server reads JPEG and PNG, and a phone's
    // photo may be larger than it takes.
    const bitmap = await createImageBitmap(file);
    let scale = Math.min(1, 1920 / Math.max(bitmap.width, bitmap.height),
      Math.sqrt(imageLimits.maxImagePixels / (bitmap.width * bitmap.height)));
    const canvas = document.createElement('canvas');
    for (let attempt = 0; attempt < 6; attempt += 1, scale *= 0.7) {
      canvas.width = Math.max(1, Math.floor(bitmap.width * scale)); canvas.height = Math.max(1, Math.floor(bitmap.height * scale));
      canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      photoBlob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.92));
      if (photoBlob && photoBlob.size <= imageLimits.maxImageBytes) break;
    }
    if (!photoBlob) throw new Error('it could not be encoded');
    if (photo.src) URL.revokeObjectURL(photo.src);
    photo.src = URL.createObjectURL(photoBlob);
  } catch (error) {
    photoBlob = null;
    demo.photo = { error: `not an image this browser can read (${error.message})` };
    showMessage(`${file.name} is ${demo.photo.error}.`);
    return;
  }
  answerPhoto();
}
// The photo goes to POST /v1/{task} (image mode) with the settings' options; the newest request wins.
async function answerPhoto() {
  if (!photoBlob) return;
  const id = ++photoRequest, askedTask = task, askedAt = performance.now();
  setStatus('asking');
  try {
    const query = window.visionTasksPage.imageModeQuery(askedTask);
    const response = await fetch(`/v1/${askedTask}${query ? '?' + query : ''}`, { method: 'POST', body: photoBlob, headers: { 'Content-Type': 'image/jpeg' } });
    const record = await response.json();
    if (id !== photoRequest || source !== 'photo') return;
    if (!response.ok) {
      demo.photo = { error: record.error ? record.error.message : `HTTP ${response.status}` };
      showMessage('The server could not answer the photo: ' + demo.photo.error); setStatus('error');
      return;
    }
    const answer = Object.assign({ task: askedTask }, record);
    const result = answer[askedTask] || {};
    // An HTTP answer carries no processing time: the page shows the request's round trip.
    const roundTrip = performance.now() - askedAt;
    demo.photo = {
      task: askedTask, people: (result.landmarks || []).length, roundTripMilliseconds: Math.round(roundTrip),
      masks: (result.segmentationMasks || []).map((mask) => mask.mean),
      gestures: (result.gestures || []).map((list) => (list[0] || {}).categoryName),
    };
    demo.answers += 1;
    $('server-time').textContent = `${roundTrip.toFixed(0)} ms round trip`;
    $('fps').textContent = '–';
    setStatus('photo');
    draw(answer);
  } catch (error) {
    if (id !== photoRequest) return;
    demo.photo = { error: error.message };
    showMessage('The photo could not be sent: ' + error.message); setStatus('error');
  }
}
$('source-camera').onchange = useCamera;
$('media-file').onchange = (event) => { useFile(event.target.files[0]); event.target.value = ''; };

// ---------- main loop ----------
function tick() {
  if (inFlight && performance.now() - sentAt > ANSWER_TIMEOUT_MS) inFlight = false;  // an answer lost: send again
  sendFrame();
  requestAnimationFrame(tick);
}

resetDeck();
connect();
requestAnimationFrame(tick);  // frames go out once a camera or a video file plays
startCamera();
