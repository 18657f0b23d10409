// The llama.cpp engine process of promptcache's llama.cpp adapter (promptcache_llamacpp/engine.py drives it): one
// model, one context, one sequence, driven by JSON lines on stdin, one JSON answer per line on stdout. llama.cpp comes
// prebuilt from node-llama-cpp (CPU, never downloaded nor built here). Operations:
//   {"op":"load","model":path,"contextSize":n,"batchSize":n,"threads":n}   -> {"vocab":n,"contextSize":n}
//   {"op":"reset"}                                   the sequence forgets every token
//   {"op":"eval","tokens":[...],"next":bool}         appends tokens; with next, the next-token distribution
//                                                    (float32 per token id, little-endian, base64) in "probabilities"
//   {"op":"save","path":p} / {"op":"restore","path":p}   llama.cpp's sequence state file (llama_state_seq_*_file)
// Every answer carries "ok", the operation's wall time "ms" and this process's CPU time so far "cpuUs"; a failure is
// {"ok":false,"error":message}. The process exits when stdin closes.
import {createInterface} from "node:readline";
import {getLlama} from "node-llama-cpp";

let llama, model, context, sequence;

const ops = {
    async load({model: modelPath, contextSize = 4096, batchSize = 512, threads = 2}) {
        llama ??= await getLlama({gpu: false, build: "never", logLevel: "error"});
        model = await llama.loadModel({modelPath});
        // flash attention on: V is stored token-major like K, so a prefix of the state is a prefix of its rows
        context = await model.createContext({contextSize, batchSize, threads, flashAttention: true, sequences: 1});
        sequence = context.getSequence();
        return {vocab: model.tokens.vocabSize ?? model.fileInfo.metadata.llama.vocab_size, contextSize: context.contextSize};
    },
    async reset() {
        await sequence.clearHistory();
        return {};
    },
    async eval({tokens, next = false}) {
        if (tokens.length === 0) {
            throw new Error("nothing to evaluate");
        }
        if (!next) {
            await sequence.evaluateWithoutGeneratingNewTokens(tokens);
            return {tokens: sequence.contextTokens.length};
        }
        const input = [...tokens.slice(0, -1), [tokens.at(-1), {generateNext: {probabilities: true}}]];
        const result = await sequence.controlledEvaluate(input);
        const probabilities = result.at(-1)?.next?.probabilities;
        if (!probabilities) {
            throw new Error("llama.cpp returned no next-token distribution");
        }
        const out = new Float32Array(model.tokens.vocabSize ?? probabilities.size);
        for (const [token, p] of probabilities) {
            out[token] = p;
        }
        return {tokens: sequence.contextTokens.length, probabilities: Buffer.from(out.buffer).toString("base64")};
    },
    async save({path}) {
        const saved = await sequence.saveStateToFile(path);
        return {bytes: saved.fileSize};
    },
    async restore({path}) {
        await sequence.loadStateFromFile(path, {acceptRisk: true});
        return {tokens: sequence.contextTokens.length};
    },
};

const lines = createInterface({input: process.stdin, crlfDelay: Infinity});
for await (const line of lines) {
    if (!line.trim()) {
        continue;
    }
    const started = process.hrtime.bigint();
    let answer;
    try {
        const request = JSON.parse(line);
        const op = ops[request.op];
        if (!op) {
            throw new Error(`unknown operation ${JSON.stringify(request.op)}`);
        }
        if (request.op !== "load" && !sequence) {
            throw new Error("no model loaded");
        }
        answer = {ok: true, ...(await op(request))};
    } catch (e) {
        answer = {ok: false, error: String(e?.message ?? e)};
    }
    const cpu = process.cpuUsage();
    answer.ms = Number(process.hrtime.bigint() - started) / 1e6;
    answer.cpuUs = cpu.user + cpu.system;
    process.stdout.write(JSON.stringify(answer) + "\n");
}
await context?.dispose();
await model?.dispose();
await llama?.dispose();
