// VisionTasks demo page: camera frames to the server over a WebSocket, landmarks and gestures
// drawn over a mirrored preview, and a stack of cards swiped by thumbs up / thumbs down.
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
const video = $('video'), overlay = $('overlay'), ctx = overlay.getContext('2d');
const grab = document.createElement('canvas');
grab.width = FRAME_WIDTH; grab.height = FRAME_HEIGHT;
const grabCtx = grab.getContext('2d');

// What happened, for people (the page) and for the browser test (read through DevTools).
const demo = window.visionTasksDemo = {
  answers: 0, errors: [], events: [], swipes: [], framesWithLandmarks: 0, handIdentifiers: [], connected: false,
};

// Other panels (teach.js) send text messages on the session and hear every answer, and a
// {type: 'connected'} when a new session starts, through this.
const answerListeners = [];
window.visionTasksPage = {
  send(text) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(text);
    return true;
  },
  onAnswer(listener) { answerListeners.push(listener); },
};

let task = 'gesture';
let socket = null, inFlight = false, sentAt = 0, lastTimestamp = -1, reconnectDelay = 1000;
let answerTimes = [];
let cameraProblem = '';  // what is wrong with the camera, shown again once the server is back

// ---------- messages ----------
function showMessage(text, kind) {
  const m = $('message');
  m.textContent = text; m.hidden = !text; m.className = 'message' + (kind === 'info' ? ' info' : '');
}
function setStatus(text) { $('status').textContent = text; }
function cameraFailed(text) { cameraProblem = text; demo.cameraProblem = text; showMessage(text); }

// ---------- camera ----------
async function startCamera() {
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    cameraFailed('This browser gives no camera access here (open the page from http://127.0.0.1 or localhost, or over https).');
    return false;
  }
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { width: FRAME_WIDTH, height: FRAME_HEIGHT }, audio: false });
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
    demo.connected = true; reconnectDelay = 1000; inFlight = false;
    setStatus('connected'); showMessage(cameraProblem);
    for (const listener of answerListeners) listener({ type: 'connected' });
  };
  socket.onmessage = (message) => onAnswer(JSON.parse(message.data));
  socket.onclose = (close) => {
    demo.connected = false; inFlight = false;
    const why = close.reason ? ` (${close.reason})` : '';
    showMessage(`The server went away${why}. Reconnecting in ${Math.round(reconnectDelay / 1000)} s…`);
    setStatus('disconnected');
    demo.disconnects = (demo.disconnects || 0) + 1;
    setTimeout(connect, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 8000);
  };
}

function sendFrame() {
  if (!socket || socket.readyState !== WebSocket.OPEN || inFlight || video.readyState < 2) return;
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
    if (!blob || !socket || socket.readyState !== WebSocket.OPEN) { inFlight = false; return; }
    const jpeg = new Uint8Array(await blob.arrayBuffer());
    const frame = new Uint8Array(8 + jpeg.length);
    new DataView(frame.buffer).setBigInt64(0, BigInt(timestamp), true);  // 8-byte little-endian timestamp (ms)
    frame.set(jpeg, 8);
    socket.send(frame);
  }, 'image/jpeg', JPEG_QUALITY);
}

function onAnswer(answer) {
  for (const listener of answerListeners) listener(answer);
  if (answer.type === 'ready') { task = answer.task; return; }
  if (answer.type === 'error') {
    inFlight = false;
    demo.errors.push(answer.error);
    if (answer.error.code === 'tooManySessions') showMessage('The server is full: ' + answer.error.message);
    else setStatus('error: ' + answer.error.message);
    return;
  }
  if (answer.type !== 'result') return;
  inFlight = false; demo.answers += 1;
  const now = performance.now();
  answerTimes.push(now);
  answerTimes = answerTimes.filter((t) => now - t < 1000);
  $('fps').textContent = answerTimes.length;
  $('server-time').textContent = answer.processingMilliseconds.toFixed(1) + ' ms';
  $('dropped').textContent = answer.droppedFrames;
  setStatus('live');
  draw(answer);
  for (const event of answer.events || []) onEvent(event);
}

// ---------- drawing ----------
function draw(answer) {
  const w = overlay.width = overlay.clientWidth, h = overlay.height = overlay.clientHeight;
  ctx.clearRect(0, 0, w, h);
  // The frame is letterboxed into the preview like the video (object-fit: contain), and mirrored.
  const scale = Math.min(w / answer.width, h / answer.height);
  const dx = (w - answer.width * scale) / 2, dy = (h - answer.height * scale) / 2;
  const point = (p) => [dx + (1 - p.x) * answer.width * scale, dy + p.y * answer.height * scale];
  const result = answer[answer.task];
  if (!result) return;
  const people = result.landmarks || [];
  const ids = answer.handIdentifiers || answer.poseIdentifiers || [];
  // A count first, then the tracked identifiers: "1 (#2)" is one hand, tracked as hand 2.
  const tracked = ids.length ? ` (${ids.map((id) => '#' + id).join(', ')})` : '';
  $('hands').textContent = answer.task === 'pose' ? `${people.length} pose(s)${tracked}` : `${people.length}${tracked}`;
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
    if (answer.task !== 'pose') {
      const side = ((result.handedness || [])[i] || [])[0];
      const gesture = ((result.gestures || [])[i] || [])[0];
      let label = side ? side.categoryName : 'hand';
      if (ids[i] !== undefined) label = `#${ids[i]} ${label}`;
      if (gesture) label += ` · ${gesture.categoryName} ${gesture.score.toFixed(2)}`;
      const [x, y] = point(landmarks[0]);
      ctx.font = 'bold 18px system-ui, sans-serif';
      const width = ctx.measureText(label).width;
      ctx.fillStyle = 'rgba(0, 0, 0, .65)'; ctx.fillRect(x - width / 2 - 6, y + 10, width + 12, 26);
      ctx.fillStyle = color; ctx.fillText(label, x - width / 2, y + 29);
    }
  });
}

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
}
function swipe(direction, source) {
  const card = deck.shift();
  if (!card) return;
  card.classList.add(direction === 'right' ? 'like' : 'nope');
  deck.forEach((rest, i) => rest.style.setProperty('--depth', String(i)));
  demo.swipes.push({ direction, card: card.dataset.name, source });
  if (direction === 'right') { demo.liked += 1; $('liked').textContent = demo.liked; }
  else { demo.passed += 1; $('passed').textContent = demo.passed; }
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

// ---------- views ----------
for (const radio of document.querySelectorAll('input[name=view]')) {
  radio.onchange = () => {
    task = radio.value;
    document.body.classList.toggle('pose-view', task === 'pose');
    // The session switches task with an options message (its tracking starts over).
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ task }));
  };
}

// ---------- main loop ----------
function tick() {
  if (inFlight && performance.now() - sentAt > ANSWER_TIMEOUT_MS) inFlight = false;  // an answer lost: send again
  sendFrame();
  requestAnimationFrame(tick);
}

resetDeck();
(async () => {
  connect();
  if (await startCamera()) requestAnimationFrame(tick);
})();
