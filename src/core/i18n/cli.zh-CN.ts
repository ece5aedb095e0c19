/**
 * The command line's own help texts in Simplified Chinese, checked against `cli.en.ts`
 * (`defineLocale`), in the words of `glossary.md`. A section of the zh-CN catalog.
 */
import type { enCli } from "./cli.en.js";
import { defineLocale } from "./entries.js";

export const zhCNCli = defineLocale<typeof enCli>()({
  "cli.program": "智能体技能库的聊天网关与管理器（Hermes 格式）。",
  "cli.option.home": "skillgate/Hermes 主目录（默认：$HERMES_HOME 或 ~/.hermes）",
  "cli.option.version": "显示 skillgate 的版本",
  "cli.option.help": "显示命令的帮助",
  "cli.option.json.result": "以 JSON 输出结果",
  "cli.option.json.checks": "以 JSON 输出检查结果",
  "cli.heading.usage": "用法：",
  "cli.heading.arguments": "参数：",
  "cli.heading.options": "选项：",
  "cli.heading.globalOptions": "全局选项：",
  "cli.heading.commands": "命令：",
  "cli.group": "{head} 命令",
  "cli.group.bare": "{head} 命令（不带子命令时即 `{head} {fallback}`）",
  "cli.group.subcommand": "下列命令之一",
  "cli.serve": "运行聊天网关和网页控制台（平台来自配置和密钥；没有平台时为终端聊天）",
  "cli.serve.terminal": "只在本终端中进行终端聊天：不连接平台，不启动网页控制台",
  "cli.serve.console": "--terminal 的旧名称（仍可使用；`skillgate console` 是网页控制台）",
  "cli.serve.demo": "在临时主目录上用示例技能进行终端聊天（不会改动你的主目录）",
  "cli.serve.set":
    "仅对本进程覆盖一项 config.yaml 设置（可重复），例如 --set gateway.coordination.replica_id=b",
  "cli.init": "创建主目录的技能文件夹；加 --examples 时同时安装示例技能",
  "cli.init.examples": "安装示例技能（已有的保持不变）",
  "cli.doctor": "检查主目录、config.yaml 以及每个已配置平台的凭据和设置",
  "cli.secrets": "<home>/.env 中的技能密钥",
  "cli.secrets.set": "把技能声明的密钥存入 <home>/.env，输入不回显（或从标准输入读取）",
  "cli.secrets.set.key": "技能声明的变量",
  "cli.console": "单独运行本地网页控制台，在浏览器中使用（不连接聊天平台）；输出一次性登录链接",
  "cli.console.port": "端口（默认 gateway.console.port）",
  "cli.console.bind": "监听地址（默认 gateway.console.bind，即 127.0.0.1）",
  "cli.console.link": "为已在运行的控制台输出新的登录链接，然后退出",
  "cli.console.readOnly": "登录链接用于只读登录（只能查看页面，不能操作）",
});
